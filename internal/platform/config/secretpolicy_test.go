package config

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

func TestSecretActionFor(t *testing.T) {
	ps := []SecretPolicy{
		{UserPath: "/team", Action: audit.SecretMask},
		{UserPath: "/team/agents", Action: audit.SecretBlock},
		{UserPath: "/team/agents/trusted", Action: audit.SecretAllow},
	}
	for path, want := range map[string]audit.SecretAction{
		"/":                         audit.SecretAllow,
		"/other":                    audit.SecretAllow,
		"/teams":                    audit.SecretAllow, // not below /team
		"/team":                     audit.SecretMask,
		"/team/a":                   audit.SecretMask,
		"/team/agents":              audit.SecretBlock,
		"/team/agents/x/y":          audit.SecretBlock,
		"/team/agents/trusted/bot":  audit.SecretAllow,
		"/team/agents-old/whatever": audit.SecretMask,
	} {
		if got := SecretActionFor(ps, path); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	if got := SecretActionFor([]SecretPolicy{{UserPath: "/", Action: audit.SecretBlock}}, "/a/b"); got != audit.SecretBlock {
		t.Errorf("a policy on / covers every path: %s", got)
	}
}

func TestValidateSecretPolicies(t *testing.T) {
	errs := validateSecretPolicies([]SecretPolicy{
		{UserPath: "/ok", Action: "block"},
		{UserPath: "", Action: "mask"},
		{UserPath: "/ok", Action: "mask"},
		{UserPath: "/x", Action: "drop"},
		{UserPath: "/a/../b", Action: "mask"},
	})
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{"secret_policies[1].user_path: required", "secret_policies[2].user_path: /ok has another policy",
		`secret_policies[3].action: "drop" is not one of block, mask, allow`, "secret_policies[4].user_path"} {
		if !strings.Contains(all, want) {
			t.Errorf("missing %q in:\n%s", want, all)
		}
	}
	if len(errs) != 4 {
		t.Errorf("%d errors, want 4:\n%s", len(errs), all)
	}
}
