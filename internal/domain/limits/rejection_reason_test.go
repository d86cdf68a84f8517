package limits

import (
	"strings"
	"testing"
)

func TestRejectionReasonCountsInTheSingular(t *testing.T) {
	for _, c := range []struct {
		rule Rule
		want string
	}{
		{up("/one", PeriodMinute, 1), `allows 1 request per minute`},
		{up("/two", PeriodMinute, 2), `allows 2 requests per minute`},
		{Rule{Scope: ScopeUserPath, Subject: "/slot", Period: PeriodConcurrent, MaxRequests: 1}, `allows 1 request in flight at once`},
	} {
		e := newEngine(t, newClock(), c.rule)
		for i := int64(0); i < c.rule.MaxRequests; i++ {
			if _, rej := e.AdmitUserPath(c.rule.Subject); rej != nil {
				t.Fatalf("%s: admission %d refused: %s", c.rule.Subject, i, rej.Reason)
			}
		}
		_, rej := e.AdmitUserPath(c.rule.Subject)
		if rej == nil || !strings.HasSuffix(rej.Reason, c.want) {
			t.Errorf("%s: reason %v, want it to end with %q", c.rule.Subject, rej, c.want)
		}
	}
	if got := countNoun(1, "tokens"); got != "token" {
		t.Errorf("countNoun(1, tokens) = %q", got)
	}
}
