package storetest

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// VirtualModelsStorage checks a vmodels.Storage: rows list in byte order
// of their sources and are never managed, a put with a different old
// source renames, deletes of missing rows and routes are fine, routes
// replace per primary.
func VirtualModelsStorage(t *testing.T, st vmodels.Storage) {
	t.Helper()
	if rows, err := st.VirtualModels(); err != nil || len(rows) != 0 {
		t.Fatalf("%v %v", rows, err)
	}
	if fo, err := st.FailoverRoutes(); err != nil || len(fo) != 0 {
		t.Fatalf("%v %v", fo, err)
	}
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	row := func(src string) vmodels.Row {
		return vmodels.Row{VirtualModel: vmodels.VirtualModel{Source: src, Description: "d " + src,
			Targets: []vmodels.Target{{Provider: "p", Model: "m", Weight: 3}}}, Managed: true, CreatedAt: &at, UpdatedAt: &at}
	}
	for _, src := range []string{"b", "B", "a"} {
		if err := st.PutVirtualModel(row(src), ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.PutVirtualModel(row("c"), "a"); err != nil {
		t.Fatal(err)
	}
	if err := st.PutVirtualModel(row("c"), "c"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteVirtualModel("never"); err != nil {
		t.Fatal("deleting a missing row:", err)
	}
	rows, err := st.VirtualModels()
	if err != nil || len(rows) != 3 {
		t.Fatalf("%+v %v", rows, err)
	}
	for i, want := range []string{"B", "b", "c"} {
		r := rows[i]
		if r.Source != want || r.Managed || r.Description != "d "+want || r.Targets[0].Weight != 3 || r.CreatedAt == nil || !r.CreatedAt.Equal(at) {
			t.Fatalf("row %d: %+v, want source %q", i, r, want)
		}
	}
	if err := st.DeleteVirtualModel("b"); err != nil {
		t.Fatal(err)
	}
	for _, r := range [][]string{{"a/x", "b/y"}, {"a/x", "c/z", "d/w"}, {"m", "n"}} {
		if err := st.PutFailoverRoute(r[0], r[1:]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.DeleteFailoverRoute("m"); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteFailoverRoute("never"); err != nil {
		t.Fatal("deleting a missing route:", err)
	}
	fo, err := st.FailoverRoutes()
	if err != nil || len(fo) != 1 || len(fo["a/x"]) != 2 || fo["a/x"][0] != "c/z" || fo["a/x"][1] != "d/w" {
		t.Fatalf("routes %v %v", fo, err)
	}
	if rows, _ := st.VirtualModels(); len(rows) != 2 {
		t.Fatalf("after delete %+v", rows)
	}
}

// VirtualModelsServiceSurvivesRestart runs a virtual-models service over
// the storage open returns across a restart: rows and routes written
// through it are loaded again and in force, a rename leaves one row,
// managed rows are never stored, and a route deleted after the restart is
// gone from the storage. open returns the engine's storage as a newly
// started process sees it; each call ends the handle it returned before
// where the engine allows one at a time.
func VirtualModelsServiceSurvivesRestart(t *testing.T, open func() vmodels.Storage) {
	t.Helper()
	provs := map[string]string{"a": "openai", "b": "openai"}
	managed := vmodels.List{{Source: "m", Targets: []vmodels.Target{{Provider: "a", Model: "x"}}}}
	s, _, err := vmodels.Open(vmodels.Options{Storage: open(), Managed: managed, Providers: provs})
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

	st := open()
	rows, err := st.VirtualModels()
	if err != nil || len(rows) != 1 || rows[0].Source != "new" || rows[0].Targets[0].Weight != 2 || rows[0].CreatedAt == nil || rows[0].Managed {
		t.Fatalf("stored rows %+v, %v", rows, err)
	}
	s2, _, err := vmodels.Open(vmodels.Options{Storage: st, Managed: managed, Providers: provs})
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
	if fo, err := st.FailoverRoutes(); err != nil || len(fo) != 0 {
		t.Fatalf("deleted route still stored: %v %v", fo, err)
	}
}
