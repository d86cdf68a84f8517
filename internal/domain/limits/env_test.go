package limits

import (
	"reflect"
	"strings"
	"testing"
)

func TestRulesFromEnv(t *testing.T) {
	seeded, err := RulesFromEnv([]string{
		"PATH=/usr/bin",
		"SET_RATE_LIMIT_=rpm=600",
		"SET_RATE_LIMIT_TEAM__ALPHA=rpm=60,tpm=10000, concurrent=5 rph=1000",
		"SET_RATE_LIMIT_MY_TEAM=RPD=5",
		`SET_RATE_LIMIT_CUSTOMERS=[{"period_seconds":30,"max_requests":5,"per_child":true}, {"period":"hour","max_tokens":1000}]`,
		"SET_PROVIDER_RATE_LIMIT_AZURE_EU=concurrent=8",
		"SET_BUDGET_TEAM=10",
		"RATE_LIMITS_ENABLED=true",
		"NOEQUALS",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []Rule{
		{Scope: ScopeProvider, Subject: "azure-eu", Period: PeriodConcurrent, MaxRequests: 8, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 600, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/customers", PeriodSeconds: 30, MaxRequests: 5, PerChild: true, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodHour, MaxTokens: 1000, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/my_team", Period: PeriodDay, MaxRequests: 5, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/team/alpha", Period: PeriodMinute, MaxRequests: 60, MaxTokens: 10000, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/team/alpha", Period: PeriodHour, MaxRequests: 1000, Source: SourceConfig},
		{Scope: ScopeUserPath, Subject: "/team/alpha", Period: PeriodConcurrent, MaxRequests: 5, Source: SourceConfig},
	}
	var rules []Rule
	for _, s := range seeded {
		rules = append(rules, s.Rule)
	}
	if !reflect.DeepEqual(rules, want) {
		t.Fatalf("rules\n got %+v\nwant %+v", rules, want)
	}
	if seeded[0].Origin != "SET_PROVIDER_RATE_LIMIT_AZURE_EU" || seeded[7].Origin != "SET_RATE_LIMIT_TEAM__ALPHA" {
		t.Fatalf("origins %+v", seeded)
	}
}

func TestRulesFromEnvErrors(t *testing.T) {
	cases := []struct {
		env, name, detail string
	}{
		{"SET_RATE_LIMIT_TEAM=", "SET_RATE_LIMIT_TEAM", "empty value"},
		{"SET_RATE_LIMIT_TEAM=rpm", "SET_RATE_LIMIT_TEAM", "name=value"},
		{"SET_RATE_LIMIT_TEAM=rpm=abc", "SET_RATE_LIMIT_TEAM", "positive integer"},
		{"SET_RATE_LIMIT_TEAM=rpm=0", "SET_RATE_LIMIT_TEAM", "positive integer"},
		{"SET_RATE_LIMIT_TEAM=rpm=-3", "SET_RATE_LIMIT_TEAM", "positive integer"},
		{"SET_RATE_LIMIT_TEAM=rps=3", "SET_RATE_LIMIT_TEAM", "unknown cap"},
		{"SET_RATE_LIMIT_TEAM=rpm=3,rpm=4", "SET_RATE_LIMIT_TEAM", "twice"},
		{"SET_RATE_LIMIT_TEAM____X=rpm=3", "SET_RATE_LIMIT_TEAM____X", "empty user-path segment"},
		{"SET_RATE_LIMIT___TEAM=rpm=3", "SET_RATE_LIMIT___TEAM", "empty user-path segment"},
		{"SET_PROVIDER_RATE_LIMIT_=rpm=3", "SET_PROVIDER_RATE_LIMIT_", "missing provider name"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"minute","max_requests":5`, "SET_RATE_LIMIT_TEAM", "JSON"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"minute","max_requests":5,"colour":1}]`, "SET_RATE_LIMIT_TEAM", "unknown field"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"minute","max_requests":5}] x`, "SET_RATE_LIMIT_TEAM", "after the array"},
		{`SET_RATE_LIMIT_TEAM=[]`, "SET_RATE_LIMIT_TEAM", "empty"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"week","max_requests":5}]`, "SET_RATE_LIMIT_TEAM", "period:"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"minute"}]`, "SET_RATE_LIMIT_TEAM", "max_requests:"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"minute","max_requests":1},{"period":"concurrent","max_requests":1,"max_tokens":4}]`, "SET_RATE_LIMIT_TEAM: rule 1", "max_tokens:"},
		{`SET_RATE_LIMIT_TEAM=[{"period":"minute","max_requests":1},{"period":"minute","max_tokens":1}]`, "SET_RATE_LIMIT_TEAM", "also set by SET_RATE_LIMIT_TEAM"},
		{`SET_PROVIDER_RATE_LIMIT_OPENAI=[{"period":"minute","max_requests":1,"per_child":true}]`, "SET_PROVIDER_RATE_LIMIT_OPENAI", "per_child:"},
		{`SET_RATE_LIMIT_TEAM=[{"period_seconds":"30","max_requests":1}]`, "SET_RATE_LIMIT_TEAM", "JSON"},
		{`SET_RATE_LIMIT_TEAM=[{"user_path":"/x","rpm":1}]`, "SET_RATE_LIMIT_TEAM", "subject: the variable name sets the subject"},
		{"SET_RATE_LIMIT_TEAM__..=rpm=1", "SET_RATE_LIMIT_TEAM__..", "segment"},
	}
	for _, c := range cases {
		_, err := RulesFromEnv([]string{"OTHER=1", c.env})
		if err == nil {
			t.Errorf("%s: no error", c.env)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.name) || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("%s: error %q, want it to start with %q and mention %q", c.env, err, c.name, c.detail)
		}
	}
	// Two variables mapping to the same rule.
	_, err := RulesFromEnv([]string{"SET_RATE_LIMIT_TEAM=rpm=1", "SET_RATE_LIMIT_team=rpm=2"})
	if err == nil || !strings.Contains(err.Error(), "SET_RATE_LIMIT_TEAM") || !strings.Contains(err.Error(), "SET_RATE_LIMIT_team") {
		t.Fatalf("duplicate: %v", err)
	}
}

func TestEnvSuffixToUserPath(t *testing.T) {
	for in, want := range map[string]string{"": "/", "TEAM": "/team", "TEAM__ALPHA": "/team/alpha", "A_B__C_D": "/a_b/c_d", "X__Y__Z": "/x/y/z"} {
		got, err := EnvSuffixToUserPath(in)
		if err != nil || got != want {
			t.Errorf("EnvSuffixToUserPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
