package admin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// TestVirtualModelView: a row's defaults are spelled out, absent lists
// are [], and the optional fields whose absence means something stay
// absent.
func TestVirtualModelView(t *testing.T) {
	b, err := json.Marshal(virtualModelView(vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "up/*"}, Managed: true}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"enabled":true`, `"strategy":"round_robin"`, `"targets":[]`, `"user_paths":[]`,
		`"description":""`, `"managed":true`, `"created_at":"`, `"updated_at":"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("want %s in %s", want, b)
		}
	}
	for _, absent := range []string{"session_affinity", "slowdown"} {
		if strings.Contains(string(b), absent) {
			t.Errorf("%s present in %s", absent, b)
		}
	}
	off := false
	b, _ = json.Marshal(virtualModelView(vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "m", Enabled: &off, Strategy: vmodels.StrategyCost}}))
	if !strings.Contains(string(b), `"enabled":false`) || !strings.Contains(string(b), `"strategy":"cost"`) {
		t.Errorf("explicit values lost: %s", b)
	}
}

// TestVirtualModelViewTargetWeight: a target without a weight shows the
// weight it counts as (1), so every target carries the spec's weight
// field; an explicit weight is kept, and the row itself is not changed.
func TestVirtualModelViewTargetWeight(t *testing.T) {
	row := vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "fast", Targets: []vmodels.Target{
		{Provider: "openai", Model: "gpt-4o-mini"}, {Provider: "mock", Model: "mock-chat", Weight: 3}}}}
	b, err := json.Marshal(virtualModelView(row))
	if err != nil {
		t.Fatal(err)
	}
	want := `"targets":[{"provider":"openai","model":"gpt-4o-mini","weight":1},{"provider":"mock","model":"mock-chat","weight":3}]`
	if !strings.Contains(string(b), want) {
		t.Errorf("want %s in %s", want, b)
	}
	if row.Targets[0].Weight != 0 {
		t.Errorf("row changed: %+v", row.Targets[0])
	}
}
