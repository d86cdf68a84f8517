package records

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

func TestVirtualModelGolden(t *testing.T) {
	full := vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "fast", Model: "gpt-4o", ProviderName: "openai",
		Description: "d <&>", Enabled: ptr(true), Strategy: vmodels.StrategyRoundRobin,
		Targets:   []vmodels.Target{{Provider: "a", Model: "m", Weight: 2}, {Provider: "b", Model: "n"}},
		UserPaths: []string{"/team"}, SessionAffinity: ptr(true), Slowdown: ptr(1.5)},
		Managed: true, CreatedAt: &at, UpdatedAt: &at}
	b, err := EncodeVirtualModel(full)
	golden(t, b, err, `{"source":"fast","model":"gpt-4o","provider_name":"openai","description":"d \u003c\u0026\u003e","enabled":true,"strategy":"round_robin","targets":[{"provider":"a","model":"m","weight":2},{"provider":"b","model":"n"}],"user_paths":["/team"],"session_affinity":true,"slowdown":1.5,"managed":false,"created_at":"2024-05-06T07:08:09.123456789Z","updated_at":"2024-05-06T07:08:09.123456789Z"}`)
	b, err = EncodeVirtualModel(vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "min"}})
	golden(t, b, err, `{"source":"min","managed":false}`)
}

func TestVirtualModelRoundTrip(t *testing.T) {
	in := vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: "s", Model: "m", Enabled: ptr(false),
		Targets: []vmodels.Target{{Provider: "p", Model: "m", Weight: 0.5}}}, CreatedAt: &at}
	b, err := EncodeVirtualModel(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeVirtualModel("s", b)
	if err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("got %+v, %v; want %+v", out, err, in)
	}
	// A managed flag in a stored row (never written so) is cleared.
	if r, err := DecodeVirtualModel("s", []byte(`{"source":"s","managed":true}`)); err != nil || r.Managed {
		t.Fatalf("managed row read as %+v, %v", r, err)
	}
	if _, err := DecodeVirtualModel("bad", []byte(`{`)); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Fatalf("corrupt row: %v", err)
	}
}

func TestFailoverTargets(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{{[]string{"a/x", "b/y"}, `["a/x","b/y"]`}, {[]string{}, `[]`}, {nil, `null`}} {
		b, err := EncodeFailoverTargets(c.in)
		golden(t, b, err, c.want)
		out, err := DecodeFailoverTargets("p", b)
		if err != nil || !reflect.DeepEqual(out, c.in) {
			t.Fatalf("%s read as %#v, %v", b, out, err)
		}
	}
	if _, err := DecodeFailoverTargets("gpt", []byte(`{}`)); err == nil || !strings.Contains(err.Error(), `"gpt"`) {
		t.Fatalf("corrupt route: %v", err)
	}
}
