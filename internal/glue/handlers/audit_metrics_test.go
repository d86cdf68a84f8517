package handlers

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// counterSum is the sum of the samples of the counter (or histogram
// counts) named name in rec whose labels include every pair of with.
func counterSum(t *testing.T, rec *reqmetrics.Recorder, name string, with map[string]string) float64 {
	t.Helper()
	reg := prometheus.NewPedanticRegistry()
	if err := rec.Register(reg); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		base, isCount := strings.CutSuffix(name, "_count")
		if mf.GetName() != name && !(isCount && mf.GetName() == base) {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			n := 0
			for _, lp := range m.GetLabel() {
				if v, ok := with[lp.GetName()]; ok {
					if v != lp.GetValue() {
						continue metrics
					}
					n++
				}
			}
			if n != len(with) {
				continue
			}
			sum += m.GetCounter().GetValue() + float64(m.GetHistogram().GetSampleCount())
		}
	}
	return sum
}

// TestMetricsWithoutAuditing: with audit logging and usage tracking off,
// the stage still observes every request in the metrics, answered or
// refused, and a client that left before the answer counts as
// client_disconnected.
func TestMetricsWithoutAuditing(t *testing.T) {
	rec := reqmetrics.New()
	mx := rec.Observer(1)
	rt := chatRoute(t)
	run := func(serve func(http.ResponseWriter, *http.Request) error) {
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
		info := reqinfo.New()
		info.UserPath = "/team/a"
		r = r.WithContext(reqinfo.With(r.Context(), info))
		_ = auditServe(nil, mx, rt, httptest.NewRecorder(), r, serve, true)
	}
	run(func(w http.ResponseWriter, r *http.Request) error {
		info := reqinfo.From(r.Context())
		info.ProviderName, info.ProviderType, info.RequestedModel, info.ResolvedModel = "oa", "openai", "gpt-4o-mini", "gpt-4o-mini"
		info.SetUsage(catalog.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
		_, _ = w.Write([]byte(`{}`))
		return nil
	})
	run(func(w http.ResponseWriter, r *http.Request) error {
		apierr.WriteFor(w, r, apierr.NotFound("no such model").WithCode("model_not_found"))
		return nil
	})
	run(func(w http.ResponseWriter, r *http.Request) error {
		w.WriteHeader(http.StatusBadGateway) // an upstream's error relayed as it is
		return nil
	})
	if n := counterSum(t, rec, "modelgate_requests_total", map[string]string{"operation": "chat", "user_path": "/team"}); n != 3 {
		t.Errorf("requests = %v, want 3", n)
	}
	if n := counterSum(t, rec, "modelgate_errors_total", map[string]string{"code": "model_not_found", "provider": ""}); n != 1 {
		t.Errorf("model_not_found errors = %v, want 1", n)
	}
	if n := counterSum(t, rec, "modelgate_errors_total", map[string]string{"code": "provider_error"}); n != 1 {
		t.Errorf("relayed 502 errors = %v, want 1", n)
	}
	if n := counterSum(t, rec, "gen_ai_client_token_usage_count", map[string]string{"provider": "oa", "token_type": "output"}); n != 1 {
		t.Errorf("token usage observations = %v, want 1", n)
	}
	if n := counterSum(t, rec, "gen_ai_client_operation_duration_seconds_count", map[string]string{"error_type": ""}); n != 1 {
		t.Errorf("successful durations = %v, want 1", n)
	}
}

// TestMetricsWithAuditing: the audit stage observes the request it
// records, once.
func TestMetricsWithAuditing(t *testing.T) {
	rec := reqmetrics.New()
	m := &memAudit{}
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
	_ = auditServe(testAuditing(m, 1<<20), rec.Observer(1), chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
		apierr.WriteFor(w, r, apierr.NotFound("no such model").WithCode("model_not_found"))
		return nil
	}, true)
	if len(m.entries) != 1 {
		t.Fatalf("%d entries recorded", len(m.entries))
	}
	if n := counterSum(t, rec, "modelgate_requests_total", nil); n != 1 {
		t.Errorf("requests = %v, want 1", n)
	}
	if n := counterSum(t, rec, "modelgate_errors_total", map[string]string{"code": "model_not_found"}); n != 1 {
		t.Errorf("errors = %v, want 1", n)
	}
}

// BenchmarkMetricsWithoutAuditing is the stage with audit logging and
// usage tracking off around a chat answer: nothing observed (off), and
// the request observed in the metrics (metrics), its labels already seen.
func BenchmarkMetricsWithoutAuditing(b *testing.B) {
	rt := chatRoute(b)
	serve := func(w http.ResponseWriter, r *http.Request) error {
		info := reqinfo.From(r.Context())
		info.ProviderName, info.ProviderType, info.RequestedModel, info.ResolvedModel = "oa", "openai", "gpt-4o-mini", "gpt-4o-mini"
		info.SetUsage(catalog.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15})
		_, _ = w.Write([]byte(`{}`))
		return nil
	}
	for _, c := range []struct {
		name string
		mx   *reqmetrics.Observer
	}{{"off", nil}, {"metrics", reqmetrics.New().Observer(1)}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
				info := reqinfo.New()
				info.UserPath = "/team/a"
				r = r.WithContext(reqinfo.With(r.Context(), info))
				_ = auditServe(nil, c.mx, rt, httptest.NewRecorder(), r, serve, true)
			}
		})
	}
}
