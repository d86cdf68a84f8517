package pgstore

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// TestVirtualModelsOnPostgres: rows and routes written through the
// service are loaded again by another process; a rename leaves one row;
// managed rows are never stored.
func TestVirtualModelsOnPostgres(t *testing.T) {
	db, dsn := newTestDB(t)
	provs := map[string]string{"a": "openai", "b": "openai"}
	managed := vmodels.List{{Source: "m", Targets: []vmodels.Target{{Provider: "a", Model: "x"}}}}
	s, _, err := vmodels.Open(vmodels.Options{Storage: NewVirtualModels(db), Managed: managed, Providers: provs})
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

	db2 := openTestDB(t, dsn)
	rows, err := NewVirtualModels(db2).VirtualModels()
	if err != nil || len(rows) != 1 || rows[0].Source != "new" || rows[0].Targets[0].Weight != 2 || rows[0].CreatedAt == nil || rows[0].Managed {
		t.Fatalf("stored rows %+v, %v", rows, err)
	}
	s2, _, err := vmodels.Open(vmodels.Options{Storage: NewVirtualModels(db2), Managed: managed, Providers: provs})
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
	if fo, _ := NewVirtualModels(db2).FailoverRoutes(); len(fo) != 0 {
		t.Fatalf("deleted route still stored: %v", fo)
	}
	if err := NewVirtualModels(db2).DeleteVirtualModel("new"); err != nil {
		t.Fatal(err)
	}
	if err := NewVirtualModels(db2).DeleteVirtualModel("never"); err != nil {
		t.Fatal("deleting a missing row:", err)
	}
	if rows, _ := NewVirtualModels(db).VirtualModels(); len(rows) != 0 {
		t.Fatalf("deleted row still stored: %+v", rows)
	}
}
