package vmodels

import (
	"math"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

func TestVirtualModelValidate(t *testing.T) {
	ok := []VirtualModel{
		{Source: "*"},
		{Source: "openai/*", Enabled: ptr(false), UserPaths: []string{"team/"}},
		{Source: "fast", Strategy: StrategyCost, Targets: []Target{{Provider: "groq", Model: "llama", Weight: 3}, {Provider: "openai", Model: "gpt-4o"}}},
		{Source: "a", Slowdown: ptr(0.0)},
		{Source: "a", Slowdown: ptr(0.1)},
		{Source: "a", Slowdown: ptr(10.0)},
		{Source: strings.Repeat("s", MaxNameLen)},
		{Source: "b", Targets: []Target{{Provider: "p", Model: "m", Weight: MaxWeight}, {Provider: "p", Model: "n", Weight: 0.001}}},
	}
	for _, v := range ok {
		if err := v.Validate(); err != nil {
			t.Errorf("%+v: %v", v, err)
		}
	}
	if ok[1].UserPaths[0] != "/team" {
		t.Errorf("user path not normalized: %q", ok[1].UserPaths[0])
	}
	for _, c := range []struct {
		v    VirtualModel
		want string
	}{
		{VirtualModel{}, "source: missing"},
		{VirtualModel{Source: "a b"}, "source:"},
		{VirtualModel{Source: "/gpt"}, "source:"},
		{VirtualModel{Source: "*", Targets: []Target{{Provider: "p", Model: "m"}}}, "source: \"*\": a row with targets needs a model name"},
		{VirtualModel{Source: "openai/*", Targets: []Target{{Provider: "p", Model: "m"}}}, "source:"},
		{VirtualModel{Source: "a", Strategy: "fastest"}, "strategy:"},
		{VirtualModel{Source: "a", Targets: []Target{{Model: "m"}}}, "targets[0].provider: missing"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p/q", Model: "m"}}}, "targets[0].provider:"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p"}}}, "targets[0].model: missing"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p", Model: "m", Weight: math.Inf(1)}}}, "targets[0].weight:"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p", Model: "m", Weight: math.NaN()}}}, "targets[0].weight:"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p", Model: "m"}, {Provider: "p", Model: "n", Weight: 1e308}}}, "targets[1].weight:"},
		{VirtualModel{Source: "a", UserPaths: []string{""}}, "user_paths[0]: must not be empty"},
		{VirtualModel{Source: "a", UserPaths: []string{"/x/../y"}}, "user_paths[0]:"},
		{VirtualModel{Source: "a", Slowdown: ptr(0.09)}, "slowdown:"},
		{VirtualModel{Source: "a", Slowdown: ptr(10.5)}, "slowdown:"},
		{VirtualModel{Source: "a", Slowdown: ptr(math.NaN())}, "slowdown:"},
		{VirtualModel{Source: strings.Repeat("s", MaxNameLen+1)}, "source: is longer than"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p", Model: strings.Repeat("m", MaxNameLen+1)}}}, "targets[0].model: is longer than"},
		{VirtualModel{Source: "a", Targets: []Target{{Provider: "p", Model: strings.Repeat("m", 257)}}}, "targets[0].model: model is 257 bytes long"},
		{VirtualModel{Source: strings.Repeat("s", 257), Targets: []Target{{Provider: "p", Model: "m"}}}, "source: a row with targets is a model name, at most 256 bytes"},
	} {
		if err := c.v.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.v, err, c.want)
		}
	}
}

func TestFailoverProblems(t *testing.T) {
	f := Failover{"gpt-4o": {"groq/llama", "openai/gpt-4o-mini"}, "b": {"c"}}
	if ps := f.Problems(); len(ps) != 0 {
		t.Fatal(ps)
	}
	long := strings.Repeat("m", MaxNameLen+1)
	for _, f := range []Failover{{long: {"b"}}, {"a": {long}}} {
		if ps := f.Problems(); len(ps) != 1 || !strings.Contains(ps[0].Error(), "is longer than") {
			t.Errorf("%d-byte name: problems %v", len(long), ps)
		}
	}
	f = Failover{"z": {}, "a": {"a"}}
	ps := f.Problems()
	if len(ps) != 2 || ps[0].Key != "a" || ps[1].Key != "z" || !strings.Contains(ps[0].Error(), `"a" is the primary`) {
		t.Fatalf("problems %v", ps)
	}
}
