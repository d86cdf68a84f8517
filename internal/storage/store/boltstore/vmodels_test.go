package boltstore

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// TestVirtualModelsSurviveRestart: rows and routes written through the
// service are loaded again from the same file; a rename leaves one row;
// managed rows are never stored.
func TestVirtualModelsSurviveRestart(t *testing.T) {
	st, path := tempStore(t)
	provs := map[string]string{"a": "openai", "b": "openai"}
	managed := vmodels.List{{Source: "m", Targets: []vmodels.Target{{Provider: "a", Model: "x"}}}}
	s, _, err := vmodels.Open(vmodels.Options{Storage: NewVirtualModels(st), Managed: managed, Providers: provs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(vmodels.VirtualModel{Source: "old", Targets: []vmodels.Target{{Provider: "b", Model: "y", Weight: 2}}}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Put(vmodels.VirtualModel{Source: "new", Targets: []vmodels.Target{{Provider: "b", Model: "y", Weight: 2}}}, "old"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PutFailover("a/x", []string{"b/y"}); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st2 := openStore(t, path)
	defer st2.Close()
	rows, err := NewVirtualModels(st2).VirtualModels()
	if err != nil || len(rows) != 1 || rows[0].Source != "new" || rows[0].Targets[0].Weight != 2 || rows[0].CreatedAt == nil {
		t.Fatalf("stored rows %+v, %v", rows, err)
	}
	s2, _, err := vmodels.Open(vmodels.Options{Storage: NewVirtualModels(st2), Managed: managed, Providers: provs})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok, _ := s2.Resolve("new", "/", "", nil); !ok || c.Provider != "b" {
		t.Fatal("stored row not in force after restart")
	}
	if got := s2.FailoverTargets("x", "a", "x"); len(got) != 1 || got[0] != "b/y" {
		t.Fatalf("failover after restart: %v", got)
	}
	if err := s2.DeleteFailover("a/x"); err != nil {
		t.Fatal(err)
	}
	if fo, _ := NewVirtualModels(st2).FailoverRoutes(); len(fo) != 0 {
		t.Fatalf("deleted route still stored: %v", fo)
	}
}
