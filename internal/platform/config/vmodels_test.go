package config

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// TestVirtualModelsAndFailoverErrors: every decode path refuses a bad
// virtual model or failover route, naming the setting (and the line in
// YAML).
func TestVirtualModelsAndFailoverErrors(t *testing.T) {
	for _, c := range []struct{ doc, want string }{
		{"virtual_models:\n  - source: ok\n  - source: fast\n    slowdown: 20\n", "line 3: virtual_models[1] (fast): slowdown: 20 is neither 0 nor between 0.1 and 10"},
		{"virtual_models:\n  - source: fast\n    strategy: random\n", "line 2: virtual_models[0] (fast): strategy:"},
		{"virtual_models:\n  - source: a\n    targets:\n      - {provider: p, model: m, weight: -1}\n", "virtual_models[0] (a): targets[0].weight:"},
		{"virtual_models:\n  - source: a\n    user_paths: [/a//b]\n", "virtual_models[0] (a): user_paths[0]: user path has an empty segment"},
		{"virtual_models:\n  - source: a\n  - source: a\n", "line 3: virtual_models[1] (a): source: also defined by [0]"},
		{"virtual_models:\n  - targets: [{provider: p, model: m}]\n", "virtual_models[0]: source: missing"},
		{"virtual_models:\n  - source: a\n    colour: red\n", "line 3: field colour not found"},
		{"admin:\n  virtual_models:\n    - source: a\n      slowdown: 0.01\n", "line 3: admin.virtual_models[0] (a): slowdown:"},
		{"failover:\n  gpt-4o: []\n", `line 2: failover["gpt-4o"]: targets: needs at least one target`},
		{"failover:\n  gpt-4o: [groq/llama, gpt-4o]\n", `failover["gpt-4o"]: targets[1]: "gpt-4o" is the primary or an earlier target`},
		{"failover:\n  gpt-4o: [groq/*]\n", "wildcards are not allowed"},
	} {
		_, err := ParseYAML([]byte(c.doc))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.doc, err, c.want)
		}
	}
	for doc, want := range map[string]string{
		`{"virtual_models":[{"source":"a","slowdown":11}]}`:      "virtual_models[0] (a): slowdown:",
		`{"virtual_models":[{"source":"a","name":"x"}]}`:         `virtual_models: json: unknown field "name"`,
		`{"admin":{"virtual_models":[{"source":" "}]}}`:          "virtual_models[0] ( ): source:",
		`{"failover":{"gpt-4o":["a b"]}}`:                        `failover["gpt-4o"]: targets[0]:`,
		`{"failover":{"gpt-4o":"groq/llama"}}`:                   "failover: json: cannot unmarshal",
		`{"virtual_models":[{"source":"a","strategy":"cheap"}]}`: "strategy:",
	} {
		var c Config
		if err := json.Unmarshal([]byte(doc), &c); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
	for v, want := range map[string]string{
		`VIRTUAL_MODELS=[{"source":"a","targets":[{"provider":"","model":"m"}]}]`: "VIRTUAL_MODELS: virtual_models[0] (a): targets[0].provider: missing",
		`VIRTUAL_MODELS={"source":"a"}`:                                           "VIRTUAL_MODELS: virtual_models: json: cannot unmarshal",
	} {
		if _, err := FromEnv([]string{v}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", v, err, want)
		}
	}
}

// TestVirtualModelsMergeBySource: the environment's rows win per source;
// the other rows of lower layers stay.
func TestVirtualModelsMergeBySource(t *testing.T) {
	yaml, err := ParseYAML([]byte("virtual_models:\n  - {source: a, description: yaml}\n  - {source: b, description: yaml}\n"))
	if err != nil {
		t.Fatal(err)
	}
	app := Config{VirtualModels: vmodels.List{{Source: "c", Description: "app"}}}
	env, err := FromEnv([]string{`VIRTUAL_MODELS=[{"source":"b","description":"env"}]`})
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := Resolve(yaml, app, env)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, v := range c.VirtualModels {
		got[v.Source] = v.Description
	}
	if len(c.VirtualModels) != 3 || got["a"] != "yaml" || got["b"] != "env" || got["c"] != "app" {
		t.Fatalf("merged %+v", c.VirtualModels)
	}
	if len(yaml.VirtualModels) != 2 || yaml.VirtualModels[1].Description != "yaml" {
		t.Fatal("the lower layer was modified")
	}
}
