package config

import (
	"strings"
	"testing"
)

func TestAdminBlockAliases(t *testing.T) {
	y, err := ParseYAML([]byte(`
admin:
  gateway_master_key: from-admin-block
  logging_enabled: false
  enabled_passthrough_providers: [openai]
  rate_limits_flush_interval: 0
  ui_enabled: false
providers:
  openai:
    api_key: k
`))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := Resolve(y, Config{}, Env{})
	if err != nil {
		t.Fatal(err)
	}
	if c.MasterKey != "from-admin-block" || c.Logging.On() || c.RateLimits.FlushEvery() != 0 ||
		len(c.Passthrough.EnabledProviders) != 1 || c.Passthrough.EnabledProviders[0] != "openai" || c.Admin.UIOn() {
		t.Fatalf("aliases not applied: %+v", c)
	}
	if c.Admin.GatewayMasterKey != "" || c.Admin.LoggingEnabled != nil {
		t.Fatal("aliases should be folded away")
	}

	// The environment still wins over the admin block.
	env, err := FromEnv([]string{"LOGGING_ENABLED=true"})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, err = Resolve(y, Config{}, env); err != nil || !c.Logging.On() {
		t.Fatalf("env over admin block: %v %v", c.Logging.On(), err)
	}

	// Both forms in one layer must agree.
	bad, err := ParseYAML([]byte("logging:\n  enabled: true\nadmin:\n  logging_enabled: false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Resolve(bad, Config{}, Env{}); err == nil || !strings.Contains(err.Error(), "admin.logging_enabled") {
		t.Fatalf("disagreeing forms: %v", err)
	}
	same, _ := ParseYAML([]byte("logging:\n  enabled: false\nadmin:\n  logging_enabled: false\n"))
	if _, _, err := Resolve(same, Config{}, Env{}); err != nil {
		t.Fatalf("agreeing forms refused: %v", err)
	}
}
