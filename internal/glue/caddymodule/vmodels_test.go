package caddymodule

import (
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestConfiguredUnlistedTargetsAreLogged: a configuration virtual model
// whose target names a model its (allowlisted, so known) provider does
// not list is put in force but logged at provision, once.
func TestConfiguredUnlistedTargetsAreLogged(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	log := zap.New(core)
	entries, err := buildProviders(config.Providers{{Name: "only", Type: "mock", Models: []string{"mock-small"},
		ModelsMode: config.ModelsModeAllowlist}}, log)
	if err != nil {
		t.Fatal(err)
	}
	a := &App{logger: log, registry: providers.NewRegistry(entries, providers.RegistryOptions{}), proxy: &proxy.Service{}}
	a.effective.VirtualModels = vmodels.List{
		{Source: "good", Targets: []vmodels.Target{{Provider: "only", Model: "mock-small"}}},
		{Source: "bad", Targets: []vmodels.Target{{Provider: "only", Model: "mock-typo"}}},
	}
	if err := a.provisionVirtualModels(nil); err != nil {
		t.Fatalf("the configuration was refused: %v", err)
	}
	a.warnUnlistedTargets() // as after the first listings: not repeated
	var warned []string
	for _, e := range logs.All() {
		if strings.Contains(e.Message, "mock-typo") {
			warned = append(warned, e.Message)
		}
	}
	if len(warned) != 1 || !strings.Contains(warned[0], `"bad"`) || !strings.Contains(warned[0], `"only"`) {
		t.Fatalf("warnings about the unlisted target: %q", warned)
	}
	if _, ok, _ := a.vmodels.Resolve("bad", "/", "", nil); !ok {
		t.Fatal("the configured row is not in force")
	}
}
