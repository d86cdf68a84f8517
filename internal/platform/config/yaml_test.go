package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestParseYAMLRejectsUnknownKeys(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"top level", "storage: x\nbogus: 1\n", "line 2: field bogus not found in type config.Config"},
		{"nested struct", "admin:\n  ui_enabled: true\n  uii: false\n", "line 3: field uii not found"},
		{"inside provider", "providers:\n  openai:\n    api_key: k\n    apikey: k\n", "line 4: field apikey not found in type config.Provider"},
		{"second provider", "providers:\n  openai:\n    api_key: k\n  groq:\n    nope: 1\n", "line 5: field nope not found"},
		{"through merge key", "providers:\n  openai:\n    <<: {typo: 1}\n", "line 3: field typo not found"},
		{"merged anchor", "providers:\n  a: &b {type: openai, typo: 1}\n  c:\n    <<: *b\n", "line 2: field typo not found"},
		{"duplicate provider", "providers:\n  openai: {}\n  openai: {}\n", `line 3: provider "openai" already defined at line 2`},
		{"duplicate provider field", "providers:\n  openai:\n    api_key: a\n    api_key: b\n", "line 4:"},
		{"providers not a map", "providers:\n  - openai\n", "line 2: providers must be a mapping"},
		{"provider not a map", "providers:\n  openai: 3\n", `provider "openai": settings must be a mapping`},
		{"bad type in provider", "providers:\n  openai:\n    timeout_seconds: soon\n", "line 3: providers.openai.timeout_seconds: cannot unmarshal"},
		{"two documents", "storage: a\n---\nstorage: b\n", "single YAML document"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseYAML([]byte(tt.doc))
			if err == nil {
				t.Fatalf("ParseYAML succeeded, want error containing %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not contain %q", err, tt.want)
			}
		})
	}
}

func TestParseYAMLProviders(t *testing.T) {
	doc := `
providers:
  zeta:
    type: openai
    api_key: kz
    models: [a, b]
  alpha:
    type: groq
  ollama:
  mid: &shared
    type: mock
    latency_ms: 5
  copy:
    <<: *shared
    models_mode: fallback
`
	c, err := ParseYAML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := Providers{
		{Name: "zeta", Type: "openai", APIKey: "kz", Models: []string{"a", "b"}},
		{Name: "alpha", Type: "groq"},
		{Name: "ollama"},
		{Name: "mid", Type: "mock", LatencyMS: 5},
		{Name: "copy", Type: "mock", LatencyMS: 5, ModelsMode: "fallback"},
	}
	if !reflect.DeepEqual(c.Providers, want) {
		t.Fatalf("providers = %+v\nwant %+v", c.Providers, want)
	}
}

func TestParseYAMLAllTopLevelKeys(t *testing.T) {
	doc := `
storage: /tmp/db
master_key: mk
server: {user_path_header: X-U, max_request_body_bytes: 10, models_refresh_seconds: 5, models_timeout_seconds: 2, gc_min_heap_bytes: 0}
admin: {endpoints_enabled: false, ui_enabled: false, live_logs_enabled: true, legacy_alias: "on", allow_unauthenticated: true}
logging: {enabled: false, log_bodies: false, log_headers: false, retention_days: 0, max_body_bytes: 7}
usage: {enabled: false}
cache: {enabled: true, ttl_seconds: 9}
providers: {openai: {api_key: k}}
virtual_models: [{source: v, targets: [{provider: openai, model: gpt-4o, weight: 2}], slowdown: 0.5, user_paths: [team/]}]
failover: {gpt-4o: [groq/llama]}
rate_limits: {enabled: false, flush_interval: 0, user_paths: [{user_path: /t, rpm: 1}], providers: [{provider: p, tpm: 2}], models: [{model: m, concurrent: 3}]}
budgets: {enabled: false, user_paths: [{}]}
passthrough: {enabled_providers: [openai]}
entitlements: [quota_templates]
`
	c, err := ParseYAML([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if c.Storage != "/tmp/db" || c.MasterKey != "mk" || c.Server.MaxRequestBodyBytes != 10 || c.Server.GCMinHeap() != 0 ||
		c.Admin.LegacyAlias != "on" || *c.Logging.RetentionDays != 0 || *c.RateLimits.FlushInterval != 0 ||
		len(c.Failover["gpt-4o"]) != 1 || len(c.VirtualModels) != 1 || c.Entitlements[0] != "quota_templates" ||
		c.VirtualModels[0].Targets[0].Weight != 2 || *c.VirtualModels[0].Slowdown != 0.5 || c.VirtualModels[0].UserPaths[0] != "/team" ||
		c.RateLimits.UserPaths[0].RPM != 1 || c.RateLimits.Providers[0].TPM != 2 || c.RateLimits.Models[0].Concurrent != 3 ||
		c.Passthrough.EnabledProviders[0] != "openai" || *c.Cache.TTLSeconds != 9 {
		t.Fatalf("unexpected decode: %+v", c)
	}
}

func TestParseYAMLEmpty(t *testing.T) {
	for _, doc := range []string{"", "\n", "# only a comment\n", "---\n"} {
		c, err := ParseYAML([]byte(doc))
		if err != nil {
			t.Fatalf("%q: %v", doc, err)
		}
		if !reflect.DeepEqual(c, Config{}) {
			t.Fatalf("%q: got %+v, want empty", doc, c)
		}
	}
}

func TestProvidersRoundTrip(t *testing.T) {
	in := Config{
		Storage: "s",
		Providers: Providers{
			{Name: "zz", Type: "openai", APIKey: "k", Models: []string{"m"}},
			{Name: "aa", Type: "mock", LatencyMS: 3},
			{Name: "mm", Type: "azure", BaseURL: "https://x", APIVersion: "v"},
		},
	}
	out, err := yaml.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseYAML(out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !reflect.DeepEqual(back, in) {
		t.Fatalf("round trip:\n%s\ngot  %+v\nwant %+v", out, back, in)
	}
	if strings.Index(string(out), "zz:") > strings.Index(string(out), "aa:") {
		t.Fatalf("order not kept:\n%s", out)
	}
}

func TestLoadYAMLFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("storage: x\nwhat: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadYAMLFile(bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+": ") || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("error = %v, want path prefix and line 2", err)
	}

	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if c, err := LoadYAMLFile(empty); err != nil || !reflect.DeepEqual(c, Config{}) {
		t.Fatalf("empty file: %+v, %v", c, err)
	}

	if _, err := LoadYAMLFile(filepath.Join(dir, "missing.yaml")); err == nil {
		t.Fatal("missing file: no error")
	}
}

// TestParseYAMLNamesSettingOfBadValue: a value of the wrong type is an
// error naming its line and its setting, not only Go's type.
func TestParseYAMLNamesSettingOfBadValue(t *testing.T) {
	tests := []struct{ doc, want string }{
		{"admin:\n  ui_enabled: maybe\n", "line 2: admin.ui_enabled: cannot unmarshal !!str `maybe` into bool"},
		{"server:\n  user_path_header: X-P\n  max_request_body_bytes: big\n", "line 3: server.max_request_body_bytes: cannot unmarshal"},
		{"providers:\n  openai:\n    timeout_seconds: soon\n", "line 3: providers.openai.timeout_seconds: cannot unmarshal"},
		{"providers:\n  openai:\n    models:\n      - a\n      - [b]\n", "line 5: providers.openai.models[1]: cannot unmarshal !!seq"},
		{"logging:\n  enabled: [true]\n", "line 2: logging.enabled: cannot unmarshal !!seq"},
		{"providers:\n  openai:\n    models: {a: b}\n", "line 3: providers.openai.models: cannot unmarshal !!map"},
		{"virtual_models:\n  a: 1\n", "line 2: virtual_models: cannot unmarshal !!map"},
		{"cache: {enabled: x, ttl_seconds: y}\n", "line 1: cannot unmarshal"}, // two settings on the line: yaml's words
	}
	for _, tt := range tests {
		_, err := ParseYAML([]byte(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want it to contain %q", tt.doc, err, tt.want)
		}
	}
}

// TestParseYAMLRefusesZeroForDefault: a setting whose zero means "not set"
// written as 0 is an error naming its line and setting, rather than
// silently taking the default (a provider timeout_seconds: 0 would wait
// 300 s, not forever); other zeros stay allowed.
func TestParseYAMLRefusesZeroForDefault(t *testing.T) {
	for doc, want := range map[string]string{
		"server:\n  max_request_body_bytes: 0\n":                          "line 2: server.max_request_body_bytes: must be positive, got 0",
		"server:\n  models_refresh_seconds: 0\n":                          "line 2: server.models_refresh_seconds: must be positive",
		"server: {models_timeout_seconds: 0.0}\n":                         "line 1: server.models_timeout_seconds: must be positive",
		"providers:\n  mock:\n    timeout_seconds: 0\n":                   "line 3: providers.mock.timeout_seconds: must be positive",
		"providers:\n  m:\n    type: mock\n    read_idle_timeout_ms: 0\n": "line 4: providers.m.read_idle_timeout_ms: must be positive",
		"providers: {mock: {max_response_bytes: 0}}\n":                    "providers.mock.max_response_bytes: must be positive",
		"providers: {mock: {max_event_bytes: 0x0}}\n":                     "providers.mock.max_event_bytes: must be positive",
	} {
		if _, err := ParseYAML([]byte(doc)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want it to contain %q", doc, err, want)
		}
	}
	for _, doc := range []string{
		"providers: {mock: {latency_ms: 0, timeout_seconds: 5}}\n",
		"logging: {retention_days: 0}\nrate_limits: {flush_interval: 0}\n",
		"server: {max_request_body_bytes: 1024}\n",
	} {
		if _, err := ParseYAML([]byte(doc)); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
}
