package limits

import (
	"reflect"
	"strings"
	"testing"
)

func TestRuleSpecRules(t *testing.T) {
	c := SourceConfig
	for _, tc := range []struct {
		scope Scope
		spec  RuleSpec
		want  []Rule
	}{
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodMinute, MaxRequests: 60, MaxTokens: 10000},
			[]Rule{{Scope: ScopeUserPath, Subject: "/team", Period: PeriodMinute, MaxRequests: 60, MaxTokens: 10000, Source: c}}},
		{ScopeUserPath, RuleSpec{UserPath: "/customers/", PeriodSeconds: 30, MaxRequests: 5, PerChild: true},
			[]Rule{{Scope: ScopeUserPath, Subject: "/customers", PeriodSeconds: 30, MaxRequests: 5, PerChild: true, Source: c}}},
		{ScopeUserPath, RuleSpec{Subject: "/", RPM: 600, TPD: 1000000, Concurrent: 20}, []Rule{
			{Scope: ScopeUserPath, Subject: "/", Period: PeriodMinute, MaxRequests: 600, Source: c},
			{Scope: ScopeUserPath, Subject: "/", Period: PeriodDay, MaxTokens: 1000000, Source: c},
			{Scope: ScopeUserPath, Subject: "/", Period: PeriodConcurrent, MaxRequests: 20, Source: c},
		}},
		{ScopeUserPath, RuleSpec{UserPath: "/ops", Period: "Hour", MaxRequests: 10, TPH: 100},
			[]Rule{{Scope: ScopeUserPath, Subject: "/ops", Period: PeriodHour, MaxRequests: 10, MaxTokens: 100, Source: c}}},
		// Compact caps next to an explicit window of another period.
		{ScopeUserPath, RuleSpec{UserPath: "/ops", Period: PeriodHour, MaxRequests: 10, TPH: 100, RPM: 2}, []Rule{
			{Scope: ScopeUserPath, Subject: "/ops", Period: PeriodMinute, MaxRequests: 2, Source: c},
			{Scope: ScopeUserPath, Subject: "/ops", Period: PeriodHour, MaxRequests: 10, MaxTokens: 100, Source: c},
		}},
		{ScopeProvider, RuleSpec{Provider: "OpenAI", Period: PeriodConcurrent, MaxRequests: 4},
			[]Rule{{Scope: ScopeProvider, Subject: "openai", Period: PeriodConcurrent, MaxRequests: 4, Source: c}}},
		{ScopeModel, RuleSpec{Model: "openai/GPT-4o", RPM: 100},
			[]Rule{{Scope: ScopeModel, Subject: "openai/gpt-4o", Period: PeriodMinute, MaxRequests: 100, Source: c}}},
		{ScopeModel, RuleSpec{Subject: "claude-sonnet", Scope: ScopeModel, Period: PeriodDay, MaxTokens: 5000000},
			[]Rule{{Scope: ScopeModel, Subject: "claude-sonnet", Period: PeriodDay, MaxTokens: 5000000, Source: c}}},
	} {
		got, err := tc.spec.Rules(tc.scope)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v.Rules(%s) =\n %+v, %v\nwant %+v", tc.spec, tc.scope, got, err, tc.want)
		}
	}
}

func TestRuleSpecErrors(t *testing.T) {
	for _, c := range []struct {
		scope  Scope
		spec   RuleSpec
		detail string
	}{
		{ScopeUserPath, RuleSpec{Period: PeriodMinute, MaxRequests: 1}, "user_path: missing"},
		{ScopeUserPath, RuleSpec{UserPath: " ", RPM: 1}, "user_path: missing"},
		{ScopeUserPath, RuleSpec{UserPath: "/a", Subject: "/b", RPM: 1}, "only one of"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Provider: "x", RPM: 1}, "provider: not a key of user_path rules"},
		{ScopeUserPath, RuleSpec{UserPath: "/team"}, "no caps"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", RPM: 0}, "no caps"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", MaxRequests: 5}, "period: required"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodMinute}, "max_requests:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: "week", MaxRequests: 1}, "period:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodMinute, PeriodSeconds: 5, MaxRequests: 1}, "period_seconds:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", PeriodSeconds: 86401, MaxRequests: 1}, "period_seconds:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", PeriodSeconds: -1, MaxRequests: 1}, "period_seconds:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodMinute, MaxRequests: -1}, "max_requests:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodMinute, MaxTokens: -1}, "max_tokens:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", RPM: -3}, "rpm:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodMinute, MaxRequests: 1, RPM: 2}, "twice"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Period: PeriodConcurrent, MaxRequests: 1, MaxTokens: 2}, "max_tokens:"},
		{ScopeUserPath, RuleSpec{UserPath: "/team", Scope: ScopeProvider, RPM: 1}, "scope:"},
		{ScopeUserPath, RuleSpec{UserPath: "/a\x01", RPM: 1}, "subject:"},
		{ScopeUserPath, RuleSpec{UserPath: "/a//b", RPM: 1}, "subject:"},
		{ScopeModel, RuleSpec{Model: "gpt 4", RPM: 1}, "subject:"},
		{ScopeProvider, RuleSpec{Provider: "openai", RPM: 1, PerChild: true}, "per_child:"},
		{ScopeProvider, RuleSpec{UserPath: "/x", RPM: 1}, "user_path: not a key of provider rules"},
		{ScopeProvider, RuleSpec{RPM: 1}, "provider: missing"},
	} {
		_, err := c.spec.Rules(c.scope)
		if err == nil || !strings.Contains(err.Error(), c.detail) {
			t.Errorf("%+v.Rules(%s): %v, want %q", c.spec, c.scope, err, c.detail)
		}
	}
}
