package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestRLStartupAborts: malformed seeding variables, and per_child
// templates without the quota_templates entitlement (environment or
// YAML), abort startup with a message naming the setting.
func TestRLStartupAborts(t *testing.T) {
	clearEnv(t)
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
			err := loadFails(t, mockBlock(""))
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
	err := loadFails(t, mockBlock("config_file "+yaml))
	t.Logf("YAML per_child template: %v", err)
	if !strings.Contains(err.Error(), "per_child") || !strings.Contains(err.Error(), "quota_templates") {
		t.Fatalf("YAML template: %v", err)
	}
	bad := writeFile(t, "bad.yaml", "rate_limits:\n  providers:\n    - {provider: openai, rpm: -1}\n")
	if err := loadFails(t, mockBlock("config_file "+bad)); !strings.Contains(err.Error(), "rate_limits.providers[0]") {
		t.Fatalf("YAML error %v", err)
	}

	// With the entitlement the same YAML starts, and each child has its
	// own counter.
	t.Setenv("GATEWAY_ENTITLEMENTS", "quota_templates")
	g := startGateway(t, mockBlock("config_file "+yaml))
	for i := 0; i < 5; i++ {
		for _, who := range []string{"/customers/alice", "/customers/bob/app"} {
			if res := chatAs(t, g, who); res.Status != 200 {
				t.Fatalf("%s %d: %d %s", who, i, res.Status, res.Body)
			}
		}
	}
	chatAs(t, g, "/customers/alice").ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if res := chatAs(t, g, "/customers/carol"); res.Status != 200 {
		t.Fatalf("carol: %d", res.Status)
	}
}

// TestRLTokensNeedUsageTracking: token caps are charged after each
// response and refuse once spent; with usage tracking off the gateway
// starts anyway and enforces only request caps.
func TestRLTokensNeedUsageTracking(t *testing.T) {
	clearEnv(t)
	t.Setenv("SET_RATE_LIMIT_TOK", "tpm=30,rpm=100")
	block := mockBlock("storage " + filepath.Join(t.TempDir(), "rl-tokens.db"))
	g := startGateway(t, block)
	var spent float64
	for i := 0; spent < 30; i++ {
		res := chatAs(t, g, "/tok")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Tokens") != "30" {
			t.Fatalf("request %d: %d %v %s", i, res.Status, res.Header, res.Body)
		}
		spent = rateRule(t, g, "user_path", "/tok", "minute")["tokens_used"].(float64)
		if i > 30 {
			t.Fatal("tokens are not charged")
		}
	}
	res := chatAs(t, g, "/tok")
	res.ExpectErr(t, 429, "rate_limit_error", "rate_limit_exceeded")
	if !strings.Contains(res.Err(t).Message, "30 tokens per minute") || res.Header.Get("X-Ratelimit-Remaining-Tokens") != "0" {
		t.Fatalf("token refusal: %v %s", res.Header, res.Body)
	}

	t.Setenv("USAGE_ENABLED", "false")
	g = restartGateway(t, block)
	for i := 0; i < 5; i++ {
		res := chatAs(t, g, "/tok")
		if res.Status != 200 || res.Header.Get("X-Ratelimit-Limit-Tokens") != "" || res.Header.Get("X-Ratelimit-Limit-Requests") != "100" {
			t.Fatalf("usage off, request %d: %d %v", i, res.Status, res.Header)
		}
	}
	if used := rateUsed(t, g, "user_path", "/tok", "minute"); used < 5 {
		t.Fatalf("request cap not counted with usage off: %v", used)
	}
}
