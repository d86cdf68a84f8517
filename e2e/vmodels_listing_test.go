package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestVirtualModelTargetMustBeListed: a virtual-model target naming a
// model its provider's listing lacks is refused with 400 naming the
// target, and nothing is stored; while a provider has not listed its
// models (its listing fails) a target on it is accepted, with a warning
// in the answer.
func TestVirtualModelTargetMustBeListed(t *testing.T) {
	clearEnv(t)
	listed := newRouteUpstream(t, "m1")
	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "listing is down", http.StatusServiceUnavailable)
	}))
	t.Cleanup(silent.Close)
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("a", "openai", "sk-up", listed.srv.URL+"/v1")+
		providerBlock("c", "openai", "sk-up", silent.URL+"/v1"))
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(string(adminCall(t, g, "GET", "/admin/models", "").Body),
		`"selector":"a/m1"`); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("provider a never listed m1")
		}
	}

	e := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"fast","targets":[{"provider":"a","model":"m1"},{"provider":"a","model":"m1-typo"}]}`).
		ExpectErr(t, 400, "invalid_request_error", "invalid_value")
	if orNull(e.Param) != "targets[1].model" || !strings.Contains(e.Message, `"a"`) || !strings.Contains(e.Message, `"m1-typo"`) {
		t.Errorf("refusal param %s, message %q; want targets[1].model naming provider a and model m1-typo", orNull(e.Param), e.Message)
	}
	if res := chatModel(t, g, "fast", "x"); res.Status != 404 {
		t.Errorf("the refused virtual model routes: %d %s", res.Status, res.Body)
	}

	res := adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"fast","targets":[{"provider":"a","model":"m1"},{"provider":"c","model":"anything"}]}`)
	if res.Status != 200 {
		t.Fatalf("a target on a provider that has not listed: %d %s", res.Status, res.Body)
	}
	warnings, _ := res.JSON(t)["warnings"].([]any)
	if len(warnings) != 1 || !strings.Contains(warnings[0].(string), "targets[1]") || !strings.Contains(warnings[0].(string), `"c"`) {
		t.Errorf("warnings %v, want one naming targets[1] on provider c", res.JSON(t)["warnings"])
	}
	res = adminCall(t, g, "PUT", "/admin/virtual-models", `{"source":"fast","targets":[{"provider":"a","model":"m1"}]}`)
	if res.Status != 200 || res.JSON(t)["warnings"] != nil {
		t.Errorf("a checked row: %d %s; want 200 without warnings", res.Status, res.Body)
	}
}
