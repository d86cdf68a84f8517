package records

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

func TestRuleGolden(t *testing.T) {
	b, err := EncodeRule(limits.Rule{Scope: limits.ScopeUserPath, Subject: "/team", Period: limits.PeriodMinute,
		MaxRequests: 10, MaxTokens: 1000, PerChild: true, Source: limits.SourceManual})
	golden(t, b, err, `{"scope":"user_path","subject":"/team","period":"minute","max_requests":10,"max_tokens":1000,"per_child":true,"source":"manual"}`)
	b, err = EncodeRule(limits.Rule{Scope: limits.ScopeModel, Subject: "openai/gpt-4o", PeriodSeconds: 90, MaxTokens: 5})
	golden(t, b, err, `{"scope":"model","subject":"openai/gpt-4o","period_seconds":90,"max_tokens":5}`)
}

func TestRuleRoundTrip(t *testing.T) {
	for _, in := range []limits.Rule{
		{Scope: limits.ScopeProvider, Subject: "openai", Period: limits.PeriodConcurrent, MaxRequests: 4, Source: limits.SourceManual},
		{Scope: limits.ScopeModel, Subject: "gpt", PeriodSeconds: 30, MaxRequests: 1, MaxTokens: 2},
	} {
		b, err := EncodeRule(in)
		if err != nil {
			t.Fatal(err)
		}
		if out, err := DecodeRule("x", b); err != nil || !reflect.DeepEqual(out, in) {
			t.Fatalf("got %+v, %v; want %+v", out, err, in)
		}
	}
}

// TestRuleUnreadable pins the one error text both engines report for a
// rule they skip.
func TestRuleUnreadable(t *testing.T) {
	name := RuleName("model", "90s", "openai/gpt-4o")
	if name != "model 90s openai/gpt-4o" {
		t.Fatal(name)
	}
	_, err := DecodeRule(name, []byte(`{"max_requests":"many"}`))
	const want = `record "model 90s openai/gpt-4o": `
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want %s", err, want)
	}
}
