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
