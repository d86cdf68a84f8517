package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
)

// rlLoadErr loads a gateway that must not start and returns the error.
func rlLoadErr(t *testing.T, block string) error {
	t.Helper()
	ports := freePorts(t, 2)
	cf := caddyfile(block, ports[0], ports[1], t.TempDir())
	err := caddy.Load(adapt(t, cf), true)
	if err == nil {
		_ = caddy.Stop()
		t.Fatalf("the gateway started with\n%s", block)
	}
	return err
}

// TestRLStartupAborts: malformed seeding variables, and per_child
// templates without the quota_templates entitlement (environment or
// YAML), abort startup with a message naming the setting.
func TestRLStartupAborts(t *testing.T) {
	rlClearEnv(t)
	for _, c := range []struct {
		name, value, want string
	}{
		{"SET_RATE_LIMIT_TEAM__ALPHA", "rpm=many", "SET_RATE_LIMIT_TEAM__ALPHA"},
		{"SET_PROVIDER_RATE_LIMIT_OPENAI", "rps=3", "SET_PROVIDER_RATE_LIMIT_OPENAI"},
		{"SET_RATE_LIMIT_X", `[{"period":"fortnight","max_requests":1}]`, "SET_RATE_LIMIT_X"},
		{"SET_RATE_LIMIT_CUSTOMERS", `[{"period":"minute","max_requests":5,"per_child":true}]`, "SET_RATE_LIMIT_CUSTOMERS: per_child"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv(c.name, c.value)
			err := rlLoadErr(t, accBlock(""))
			t.Logf("%s=%s: %v", c.name, c.value, err)
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not name %s", err, c.want)
			}
			if strings.Contains(c.want, "per_child") && !strings.Contains(err.Error(), "quota_templates") {
				t.Fatalf("error %q does not name the entitlement", err)
			}
		})
	}
	yaml := writeFile(t, "rl.yaml", "rate_limits:\n  user_paths:\n    - {user_path: /customers, rpm: 5, per_child: true}\n")
	err := rlLoadErr(t, accBlock("config_file "+yaml))
	t.Logf("YAML per_child template: %v", err)
	if !strings.Contains(err.Error(), "per_child") || !strings.Contains(err.Error(), "quota_templates") {
		t.Fatalf("YAML template: %v", err)
	}
	bad := writeFile(t, "bad.yaml", "rate_limits:\n  providers:\n    - {provider: openai, rpm: -1}\n")
	if err := rlLoadErr(t, accBlock("config_file "+bad)); !strings.Contains(err.Error(), "rate_limits.providers[0]") {
		t.Fatalf("YAML error %v", err)
	}

	// With the entitlement the same YAML starts, and each child has its
	// own counter.
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates")
	g := startGateway(t, accBlock("config_file "+yaml))
	for i := 0; i < 5; i++ {
		for _, who := range []string{"/customers/alice", "/customers/bob/app"} {
			if res := rlChat(t, g, who); res.Status != 200 {
				t.Fatalf("%s %d: %d %s", who, i, res.Status, res.Body)
			}
		}
	}
	rlChat(t, g, "/customers/alice").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if res := rlChat(t, g, "/customers/carol"); res.Status != 200 {
		t.Fatalf("carol: %d", res.Status)
	}
}

// TestRLTokensNeedUsageTracking: token caps are charged after each
// response and refuse once spent; with usage tracking off the gateway
// starts anyway and enforces only request caps.
func TestRLTokensNeedUsageTracking(t *testing.T) {
	rlClearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TOK", "tpm=30,rpm=100")
	block := accBlock("storage " + filepath.Join(t.TempDir(), "rl-tokens.db"))
	g := startGateway(t, block)
	var spent float64
	for i := 0; spent < 30; i++ {
		res := rlChat(t, g, "/tok")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Tokens") != "30" {
			t.Fatalf("request %d: %d %v %s", i, res.Status, res.Header, res.Body)
		}
		spent = rlRule(t, g, "user_path", "/tok", "minute")["tokens_used"].(float64)
		if i > 30 {
			t.Fatal("tokens are not charged")
		}
	}
	res := rlChat(t, g, "/tok")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if !strings.Contains(res.Err(t).Message, "30 tokens per minute") || res.Header.Get("X-Ratelimit-Remaining-Tokens") != "0" {
		t.Fatalf("token refusal: %v %s", res.Header, res.Body)
	}

	t.Setenv("USAGE_ENABLED", "false")
	g = rlRestart(t, block)
	for i := 0; i < 5; i++ {
		res := rlChat(t, g, "/tok")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Tokens") != "" || res.Header.Get("X-Ratelimit-Limit-Requests") != "100" {
			t.Fatalf("usage off, request %d: %d %v", i, res.Status, res.Header)
		}
	}
	if used := rlUsed(t, g, "user_path", "/tok", "minute"); used < 5 {
		t.Fatalf("request cap not counted with usage off: %v", used)
	}
}
