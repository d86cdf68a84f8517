package reqmetrics

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestGrafanaDashboardNamesRealMetrics: every metric the dashboard in
// docs/grafana queries is one the gateway exports: a family of this
// package, or one of the storage families, and every one is documented in
// docs/observability.md.
func TestGrafanaDashboardNamesRealMetrics(t *testing.T) {
	raw, err := os.ReadFile("../../../docs/grafana/modelgate-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil || len(dash.Panels) == 0 {
		t.Fatalf("dashboard: %v", err)
	}
	exported := map[string]bool{
		// Registered by the app beside this package's families.
		"modelgate_store_queue_depth": true, "modelgate_store_commit_seconds": true, "modelgate_audit_dropped_total": true,
	}
	ch := make(chan *prometheus.Desc, 64)
	for _, c := range New().Collectors() {
		c.Describe(ch)
	}
	close(ch)
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	for d := range ch {
		if m := fq.FindStringSubmatch(d.String()); m != nil {
			exported[m[1]] = true
		}
	}
	doc, err := os.ReadFile("../../../docs/observability.md")
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile(`\b((?:modelgate|gen_ai)_[a-z_]+)`)
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			for _, m := range name.FindAllString(tg.Expr, -1) {
				family := m
				for _, suffix := range []string{"_bucket", "_sum", "_count"} {
					if base, ok := strings.CutSuffix(m, suffix); ok && exported[base] {
						family = base
					}
				}
				if !exported[family] {
					t.Errorf("panel %q queries %s, which the gateway does not export", p.Title, m)
				}
				if !strings.Contains(string(doc), "`"+family+"`") {
					t.Errorf("panel %q queries %s, which docs/observability.md does not list", p.Title, family)
				}
			}
		}
	}
}
