package limits

import (
	"errors"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	ok := []Rule{
		up("/team", PeriodMinute, 60),
		{Scope: ScopeUserPath, Subject: "/team/", Period: PeriodHour, MaxTokens: 1000},
		{Scope: ScopeUserPath, Subject: "team", Period: PeriodHour, MaxTokens: 1000},
		{Scope: ScopeUserPath, Subject: "/", PeriodSeconds: 30, MaxRequests: 5, PerChild: true},
		{Scope: ScopeProvider, Subject: "OpenAI", Period: PeriodConcurrent, MaxRequests: 4},
		{Scope: ScopeModel, Subject: "openai/gpt-4o", Period: PeriodDay, MaxRequests: 1, MaxTokens: 2},
		{Scope: ScopeModel, Subject: "gpt-4o", Period: PeriodMinute, MaxRequests: 1, Source: SourceConfig},
		{Scope: ScopeModel, Subject: strings.Repeat("m", MaxSubjectLen), Period: PeriodMinute, MaxRequests: 1},
	}
	for _, r := range ok {
		if err := r.Validate(true); err != nil {
			t.Errorf("Validate(%+v) = %v", r, err)
		}
	}
	bad := []struct {
		rule  Rule
		field string
	}{
		{Rule{Subject: "/x", Period: PeriodMinute, MaxRequests: 1}, "scope"},
		{Rule{Scope: "team", Subject: "/x", Period: PeriodMinute, MaxRequests: 1}, "scope"},
		{Rule{Scope: ScopeUserPath, Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeUserPath, Subject: "  ", Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeModel, Subject: "/gpt", Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeUserPath, Subject: "/a\x00b", Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeProvider, Subject: "open ai", Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeModel, Subject: strings.Repeat("m", MaxSubjectLen+1), Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeProvider, Subject: strings.Repeat("p", MaxSubjectLen+1), Period: PeriodMinute, MaxRequests: 1}, "subject"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: "week", MaxRequests: 1}, "period"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", MaxRequests: 1}, "period"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodMinute, PeriodSeconds: 60, MaxRequests: 1}, "period_seconds"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", PeriodSeconds: 86401, MaxRequests: 1}, "period_seconds"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodMinute}, "max_requests"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodMinute, MaxRequests: -1}, "max_requests"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodMinute, MaxTokens: -1, MaxRequests: 1}, "max_tokens"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodConcurrent, MaxRequests: 2, MaxTokens: 5}, "max_tokens"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodConcurrent, MaxTokens: 5}, "max_tokens"},
		{Rule{Scope: ScopeProvider, Subject: "openai", Period: PeriodMinute, MaxRequests: 1, PerChild: true}, "per_child"},
		{Rule{Scope: ScopeModel, Subject: "gpt", Period: PeriodMinute, MaxRequests: 1, PerChild: true}, "per_child"},
		{Rule{Scope: ScopeUserPath, Subject: "/x", Period: PeriodMinute, MaxRequests: 1, Source: "yaml"}, "source"},
	}
	for _, c := range bad {
		err := c.rule.Validate(true)
		if err == nil {
			t.Errorf("Validate(%+v) = nil, want error on %s", c.rule, c.field)
			continue
		}
		if !errors.Is(err, ErrInvalidRule) || !strings.Contains(err.Error(), c.field+":") {
			t.Errorf("Validate(%+v) = %q, want ErrInvalidRule naming %s", c.rule, err, c.field)
		}
	}
}

func TestValidateEntitlement(t *testing.T) {
	r := Rule{Scope: ScopeUserPath, Subject: "/customers", Period: PeriodMinute, MaxRequests: 5, PerChild: true}
	if err := r.Validate(false); !errors.Is(err, ErrQuotaTemplatesNotEntitled) {
		t.Fatalf("Validate(false) = %v, want ErrQuotaTemplatesNotEntitled", err)
	}
	if err := r.Validate(true); err != nil {
		t.Fatalf("Validate(true) = %v", err)
	}
	// A per_child provider rule is structurally invalid, entitled or not.
	p := Rule{Scope: ScopeProvider, Subject: "openai", Period: PeriodMinute, MaxRequests: 5, PerChild: true}
	if err := p.Validate(false); !errors.Is(err, ErrInvalidRule) {
		t.Fatalf("per_child provider: %v", err)
	}
}

func TestKey(t *testing.T) {
	r := Rule{Scope: ScopeModel, Subject: " OpenAI/GPT-4o ", Period: PeriodHour, PeriodSeconds: 5}
	if k := r.Key(); k != (Key{Scope: ScopeModel, Subject: "openai/gpt-4o", Period: PeriodHour}) {
		t.Fatalf("Key = %+v", k)
	}
	// Subjects match without regard to case, user paths too.
	u := Rule{Scope: ScopeUserPath, Subject: "/Team/", PeriodSeconds: 30}
	if k := u.Key(); k != (Key{Scope: ScopeUserPath, Subject: "/team", PeriodSeconds: 30}) {
		t.Fatalf("Key = %+v", k)
	}
	if got := u.Key().String(); got != `user_path "/team" 30s` {
		t.Fatalf("String = %q", got)
	}
}
