package reqmetrics

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

func TestObserveSessionRefusal(t *testing.T) {
	rec := New()
	o := rec.Observer(1)
	// A per_child session limit refused a session of /customers/alice:
	// the label keeps the first segment.
	info := reqinfo.New()
	info.SessionRule = &reqinfo.Rule{Subject: "/customers/alice", Period: "max_repeats"}
	o.Observe(routes.ShapeChat, info, Outcome{Status: 429, Code: CodeSessionLimited, End: info.Start})
	got := gather(t, rec)
	want(t, got, map[string]float64{
		`modelgate_refusals_total{kind="session",rule="/customers:max_repeats"}`:             1,
		`modelgate_errors_total{operation="chat",provider="",code="session_limit_exceeded"}`: 1,
	})
	for k := range got {
		if strings.Contains(k, "alice") {
			t.Errorf("unexpected sample %s", k)
		}
	}
}
