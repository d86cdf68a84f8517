package proxy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// planService is a service whose provider "up" serves m1 and m2, with a
// virtual model "fast" onto up/m1, a failover route from it to m2, and a
// policy that keeps up/m2 from callers outside team/.
func planService(t *testing.T) (*Service, *stubProvider) {
	t.Helper()
	p := &stubProvider{name: "up", streamOpt: true, answer: func(providers.Endpoint, string, []byte) *http.Response {
		return jsonResponse(200, chatAnswer)
	}}
	reg := providers.NewRegistry([]providers.Entry{{Provider: twoModels{p}}}, providers.RegistryOptions{})
	reg.Start(context.Background())
	<-reg.Ready()
	s := &Service{Registry: reg, MaxBodyBytes: 1 << 20}
	vm, err := vmodels.New(vmodels.Options{Providers: map[string]string{"up": "openai"},
		Managed: vmodels.List{
			{Source: "fast", Targets: []vmodels.Target{{Provider: "up", Model: "m1"}}},
			{Source: "up/m2", Enabled: new(false), UserPaths: []string{"/team/"}},
		},
		ManagedFailover: vmodels.Failover{"fast": {"m1"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	s.VirtualModels = vm
	return s, p
}

// twoModels is a stub provider that lists m1 and m2.
type twoModels struct{ *stubProvider }

func (twoModels) ListModels(context.Context) ([]providers.Model, error) {
	return []providers.Model{{ID: "m1"}, {ID: "m2"}}, nil
}

// planRequest is a chat request with body, carrying a fresh reqinfo.Info
// that passed the virtual-model stage when routed is set.
func planRequest(body string, routed bool) (*http.Request, *reqinfo.Info) {
	req := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(body))
	req.Header["Content-Type"] = jsonContentType
	info := reqinfo.New()
	info.VirtualModels = routed
	info.UserPath = "/"
	return req.WithContext(reqinfo.With(req.Context(), info)), info
}

func TestPlanResolvesTheRequestOnce(t *testing.T) {
	s, up := planService(t)
	req, info := planRequest(`{"model":"fast","stream":true,"messages":[]}`, true)
	p := s.Plan(req)
	if p == nil || p.Err != nil {
		t.Fatalf("plan = %+v", p)
	}
	want := reqinfo.Target{Provider: "up", ProviderType: "openai", Model: "m1", Alias: true}
	if p.Requested != "fast" || p.Target != want || !p.Stream || !p.VirtualModels ||
		len(p.Fallbacks) != 1 || p.Fallbacks[0] != "m1" {
		t.Fatalf("plan = %+v", p)
	}
	if info.Body() == nil || info.RequestedModel != "fast" || !info.AliasUsed {
		t.Fatalf("info after planning: body %v, requested %q, alias %v", info.Body() != nil, info.RequestedModel, info.AliasUsed)
	}
	if again := s.Plan(req); again != p {
		t.Fatal("a second Plan made a new plan")
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || up.lastModel != "m1" {
		t.Fatalf("served %d to model %q", rec.Code, up.lastModel)
	}
	if info.Plan() != p {
		t.Fatal("serving replaced the plan")
	}
}

func TestPlanRefusalIsTheProxysAnswer(t *testing.T) {
	s, _ := planService(t)
	for _, tc := range []struct {
		name, body string
		routed     bool
		status     int
		code       string
	}{
		{"malformed body", `{"model":`, true, 400, "invalid_json"},
		{"no model", `{"messages":[]}`, true, 400, apierr.CodeMissingParameter},
		{"alias without the virtual-model stage", `{"model":"fast"}`, false, 404, "model_not_found"},
		{"denied by policy", `{"model":"m2"}`, true, 403, "model_access_denied"},
		{"denied by policy without the virtual-model stage", `{"model":"m2"}`, false, 403, "model_access_denied"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := planRequest(tc.body, tc.routed)
			p := s.Plan(req)
			e, ok := p.Err.(*apierr.Error)
			if !ok || e.StatusCode != tc.status || e.Code == nil || *e.Code != tc.code {
				t.Fatalf("plan error = %#v", p.Err)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), `"`+tc.code+`"`) {
				t.Fatalf("answer %d %s", rec.Code, rec.Body)
			}
		})
	}
}

func TestPlanOnlyForJSONModelEndpoints(t *testing.T) {
	s, _ := planService(t)
	req := httptest.NewRequest(http.MethodGet, "/v1/models", nil)
	req = req.WithContext(reqinfo.With(req.Context(), reqinfo.New()))
	if p := s.Plan(req); p != nil {
		t.Fatalf("GET /v1/models has plan %+v", p)
	}
	bare := httptest.NewRequest(http.MethodPost, "/v1/chat/completions", strings.NewReader(`{"model":"m1"}`))
	if p := s.Plan(bare); p != nil {
		t.Fatalf("a request without reqinfo has plan %+v", p)
	}
}

// TestPlanMadeByTheProxyEditsItsOwnBody: a body only the proxy read may
// take the usage request in place; one an earlier stage read (and the
// audit records) is never changed.
func TestPlanMadeByTheProxyEditsItsOwnBody(t *testing.T) {
	s, up := planService(t)
	body := `{"model":"m1","stream":true,"messages":[]}`
	shared, info := planRequest(body, true)
	info.SetBody([]byte(body))
	s.ServeHTTP(httptest.NewRecorder(), shared)
	if got := string(info.Body().Bytes); got != body {
		t.Fatalf("shared body changed to %s", got)
	}
	if !strings.Contains(string(up.lastBody), `"include_usage":true`) {
		t.Fatalf("upstream body %s does not ask for usage", up.lastBody)
	}
	own, info := planRequest(body, true)
	s.ServeHTTP(httptest.NewRecorder(), own)
	if !info.Body().Editable {
		t.Fatal("a body the proxy read itself is not marked editable")
	}
}

// TestPlanBeforeRoutingMarksAShadowedModel: made before the
// virtual-model stage, the plan of a provider model that a virtual model
// shadows resolves to the provider model but is not settled, since that
// stage will route it elsewhere; with the stage it routes to the alias's
// target.
func TestPlanBeforeRoutingMarksAShadowedModel(t *testing.T) {
	s, _ := planService(t)
	vm, err := vmodels.New(vmodels.Options{Providers: map[string]string{"up": "openai"},
		Managed: vmodels.List{{Source: "m1", Targets: []vmodels.Target{{Provider: "up", Model: "m2"}}}}})
	if err != nil {
		t.Fatal(err)
	}
	s.VirtualModels = vm
	req, _ := planRequest(`{"model":"m1"}`, false)
	if p := s.Plan(req); p.Err != nil || !p.Unrouted || p.Settled() || p.Target.Model != "m1" {
		t.Fatalf("plan before routing %+v", p)
	}
	req, _ = planRequest(`{"model":"m1"}`, true)
	if p := s.Plan(req); !p.Settled() || p.Target.Model != "m2" || !p.Target.Alias {
		t.Fatalf("routed plan %+v", p)
	}
}
