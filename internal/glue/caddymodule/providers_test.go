package caddymodule

import (
	"context"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/platform/config"
)

func TestBuildProvidersFollowsTheTypeTable(t *testing.T) {
	var ps config.Providers
	for _, ti := range providers.Types() {
		ps = append(ps, config.Provider{Name: "i-" + ti.Name, Type: ti.Name, BaseURL: ti.DefaultBaseURL,
			APIKey: "k", TimeoutSeconds: 5, ModelsMode: config.ModelsModeFallback})
	}
	ps = append(ps, config.Provider{Name: "only", Type: "mock", Models: []string{"mock-small"}, ModelsMode: config.ModelsModeAllowlist})
	core, logs := observer.New(zap.WarnLevel)
	entries, err := buildProviders(ps, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	built := map[string]providers.Provider{}
	for _, e := range entries {
		built[e.Provider.Name()] = e.Provider
		if e.Allowlist != (e.Provider.Name() == "only") {
			t.Errorf("%s: allowlist %v", e.Provider.Name(), e.Allowlist)
		}
	}
	for _, ti := range providers.Types() {
		p, ok := built["i-"+ti.Name]
		if ok != ti.Served {
			t.Errorf("%s: built %v, served %v", ti.Name, ok, ti.Served)
			continue
		}
		if ok && (p.Type() != ti.Name || p.Shape() != ti.Shape) {
			t.Errorf("%s: adapter type %q shape %d", ti.Name, p.Type(), p.Shape())
		}
	}
	skipped := logs.FilterMessage("provider type not served yet; instance skipped").All()
	served := 0
	for _, ti := range providers.Types() {
		if ti.Served {
			served++
		}
	}
	if len(skipped) != len(providers.Types())-served {
		t.Errorf("skip warnings: %v", skipped)
	}
	// The in-process type answers without a network, with or without a
	// configured base URL.
	for _, name := range []string{"i-mock", "only"} {
		ms, err := built[name].ListModels(context.Background())
		if err != nil || len(ms) == 0 {
			t.Errorf("%s: listing %v %v", name, ms, err)
		}
	}
}

func TestBuildProvidersRefusesUnknownTypes(t *testing.T) {
	_, err := buildProviders(config.Providers{{Name: "x", Type: "OpenAI"}}, zap.NewNop())
	if err == nil || !strings.Contains(err.Error(), `providers.x.type: unknown provider type "OpenAI"`) {
		t.Fatalf("got %v", err)
	}
}
