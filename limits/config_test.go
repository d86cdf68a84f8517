package limits

import (
	"reflect"
	"strings"
	"testing"
)

func TestRulesFromConfig(t *testing.T) {
	userPaths := []any{
		map[string]any{"user_path": "/team", "period": "minute", "max_requests": 60, "max_tokens": 10000},
		map[string]any{"user_path": "/customers/", "period_seconds": 30, "max_requests": 5, "per_child": true},
		map[string]any{"subject": "/", "rpm": 600, "tpd": 1e6, "concurrent": "20"},
		map[any]any{"user_path": "/ops", "period": "hour", "max_requests": int64(10), "tph": float64(100), "per_child": "false"},
	}
	providers := []any{
		map[string]any{"provider": "OpenAI", "period": "concurrent", "max_requests": 4},
	}
	models := []any{
		map[string]any{"model": "openai/GPT-4o", "rpm": 100},
		map[string]any{"subject": "claude-sonnet", "scope": "model", "period": "day", "max_tokens": 5000000},
	}
	rules, err := RulesFromConfig(userPaths, providers, models)
	if err != nil {
		t.Fatal(err)
	}
	c := SourceConfig
	want := []Rule{
		{Scope: ScopeUserPath, Subject: "/team", Period: PeriodMinute, MaxRequests: 60, MaxTokens: 10000, Source: c},
		{Scope: ScopeUserPath, Subject: "/customers", PeriodSeconds: 30, MaxRequests: 5, PerChild: true, Source: c},
		{Scope: ScopeUserPath, Subject: "/", Period: PeriodConcurrent, MaxRequests: 20, Source: c},
		{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 600, Source: c},
		{Scope: ScopeUserPath, Subject: "/", Period: PeriodDay, MaxTokens: 1000000, Source: c},
		{Scope: ScopeUserPath, Subject: "/ops", Period: PeriodHour, MaxRequests: 10, MaxTokens: 100, Source: c},
		{Scope: ScopeProvider, Subject: "openai", Period: PeriodConcurrent, MaxRequests: 4, Source: c},
		{Scope: ScopeModel, Subject: "openai/gpt-4o", Period: PeriodMinute, MaxRequests: 100, Source: c},
		{Scope: ScopeModel, Subject: "claude-sonnet", Period: PeriodDay, MaxTokens: 5000000, Source: c},
	}
	if !reflect.DeepEqual(rules, want) {
		t.Fatalf("rules\n got %+v\nwant %+v", rules, want)
	}
	// Compact keys next to an explicit window of another period merge.
	rules, err = RulesFromConfig([]any{map[string]any{"user_path": "/ops", "period": "hour", "max_requests": 10, "tph": 100, "rpm": 2}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rules) != 2 || rules[0].Period != PeriodMinute || rules[1].MaxRequests != 10 || rules[1].MaxTokens != 100 {
		t.Fatalf("merged = %+v", rules)
	}
}

func TestRulesFromConfigErrors(t *testing.T) {
	cases := []struct {
		list   string
		entry  any
		detail string
	}{
		{"user_paths", "just a string", "must be a mapping"},
		{"user_paths", map[string]any{"period": "minute", "max_requests": 1}, "user_path: missing"},
		{"user_paths", map[string]any{"user_path": 5, "rpm": 1}, "user_path: must be a non-empty string"},
		{"user_paths", map[string]any{"user_path": "/a", "subject": "/b", "rpm": 1}, "only one of"},
		{"user_paths", map[string]any{"user_path": "/team", "rpm": 1, "colour": "red"}, `unknown key "colour"`},
		{"user_paths", map[string]any{"user_path": "/team", "provider": "x", "rpm": 1}, `unknown key "provider"`},
		{"user_paths", map[string]any{"user_path": "/team"}, "no caps"},
		{"user_paths", map[string]any{"user_path": "/team", "max_requests": 5}, "period: required"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "minute"}, "max_requests:"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "week", "max_requests": 1}, "period:"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "minute", "period_seconds": 5, "max_requests": 1}, "period_seconds:"},
		{"user_paths", map[string]any{"user_path": "/team", "period": 5, "max_requests": 1}, "period:"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "minute", "max_requests": 1.5}, "max_requests:"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "minute", "max_requests": -1}, "max_requests:"},
		{"user_paths", map[string]any{"user_path": "/team", "rpm": 0}, "rpm:"},
		{"user_paths", map[string]any{"user_path": "/team", "rpm": "many"}, "rpm:"},
		{"user_paths", map[string]any{"user_path": "/team", "rpm": 1, "per_child": "perhaps"}, "per_child:"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "minute", "max_requests": 1, "rpm": 2}, "twice"},
		{"user_paths", map[string]any{"user_path": "/team", "period": "concurrent", "max_requests": 1, "max_tokens": 2}, "max_tokens:"},
		{"user_paths", map[string]any{"user_path": "/team", "scope": "provider", "rpm": 1}, "scope:"},
		{"user_paths", map[string]any{"user_path": "/a\x01", "rpm": 1}, "subject:"},
		{"models", map[string]any{"model": "gpt 4", "rpm": 1}, "subject:"},
		{"providers", map[string]any{"provider": "openai", "rpm": 1, "per_child": true}, "per_child:"},
		{"providers", map[string]any{"user_path": "/x", "rpm": 1}, "provider: missing"},
		{"models", map[string]any{"model": "gpt", "period_seconds": 0, "max_requests": 1}, "period_seconds:"},
	}
	for _, c := range cases {
		var up, pr, mo []any
		switch c.list {
		case "user_paths":
			up = []any{map[string]any{"user_path": "/ok", "rpm": 1}, c.entry}
		case "providers":
			pr = []any{map[string]any{"provider": "ok", "rpm": 1}, c.entry}
		case "models":
			mo = []any{map[string]any{"model": "ok", "rpm": 1}, c.entry}
		}
		_, err := RulesFromConfig(up, pr, mo)
		if err == nil {
			t.Errorf("%v: no error", c.entry)
			continue
		}
		prefix := "rate_limits." + c.list + "[1]"
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("%v: error %q, want prefix %q and %q", c.entry, err, prefix, c.detail)
		}
	}
	// Duplicates across entries name both.
	_, err := RulesFromConfig([]any{
		map[string]any{"user_path": "/team", "rpm": 1},
		map[string]any{"user_path": "/team/", "period": "minute", "max_tokens": 5},
	}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "rate_limits.user_paths[1]") || !strings.Contains(err.Error(), "rate_limits.user_paths[0]") {
		t.Fatalf("duplicate: %v", err)
	}
}
