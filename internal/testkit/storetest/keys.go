package storetest

import (
	"errors"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/keys"
)

// KeysBackend checks a keys.Backend: Put replaces, Delete of a missing
// entry is fine, PutLater lands after flush (and replaces), Load goes in
// byte order of the entry names and stops at the callback's error.
func KeysBackend(t *testing.T, b keys.Backend, flush func() error) {
	t.Helper()
	load := func() ([]string, map[string]string) {
		t.Helper()
		var order []string
		got := map[string]string{}
		if err := b.Load(func(k, v []byte) error {
			order = append(order, string(k))
			got[string(k)] = string(v)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return order, got
	}
	if order, _ := load(); len(order) != 0 {
		t.Fatalf("empty backend loaded %v", order)
	}
	if err := b.Delete([]byte("missing")); err != nil {
		t.Fatal("deleting a missing entry:", err)
	}
	for _, kv := range [][2]string{{"key/b", "1"}, {"key/B", "2"}, {"key/b", "3"}, {"key/a", "4"}} {
		if err := b.Put([]byte(kv[0]), []byte(kv[1])); err != nil {
			t.Fatal(err)
		}
	}
	if !b.PutLater([]byte("used/a"), []byte("x")) || !b.PutLater([]byte("used/a"), []byte("y")) || !b.PutLater([]byte("used/b"), []byte("z")) {
		t.Fatal("PutLater refused")
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete([]byte("key/a"), []byte("used/b"), []byte("never")); err != nil {
		t.Fatal(err)
	}
	order, got := load()
	want := []string{"key/B", "key/b", "used/a"}
	if len(order) != len(want) || order[0] != want[0] || order[1] != want[1] || order[2] != want[2] {
		t.Fatalf("load order %q, want %q", order, want)
	}
	if got["key/b"] != "3" || got["used/a"] != "y" {
		t.Fatalf("loaded %v", got)
	}
	stop := errors.New("stop")
	n := 0
	if err := b.Load(func(k, v []byte) error { n++; return stop }); err != stop || n != 1 {
		t.Fatalf("Load returned %v after %d calls, want the callback's error after 1", err, n)
	}
}
