package storetest

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/responses"
)

// ResponsesStorage checks a responses.Storage: unknown ids answer
// ErrNotFound, a record comes back field for field (its input and
// response byte for byte), a put replaces the record of its id, a delete
// removes exactly its record, and DeleteResponsesBefore removes exactly
// the records created before its time.
func ResponsesStorage(t *testing.T, st responses.Storage) {
	t.Helper()
	if _, err := st.Response("resp_none"); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("Response: %v", err)
	}
	if err := st.DeleteResponse("resp_none"); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("DeleteResponse: %v", err)
	}
	base := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
	a := &responses.Record{ID: "resp_a", UserPath: "/team/a", CreatedAt: base, Provider: "mock",
		PreviousID: "resp_0", Input: []byte(`[{"role":"user","content":"hé \u2028"}]`),
		Response: []byte(`{"id":"resp_a","object":"response","output":[]}`)}
	b := &responses.Record{ID: "resp_b", UserPath: "/", CreatedAt: base.Add(time.Hour), Provider: "openai", Native: true}
	if err := st.PutResponses([]*responses.Record{a, b}); err != nil {
		t.Fatal(err)
	}
	same(t, st, a)
	same(t, st, b)
	a2 := *a
	a2.Response = []byte(`{"id":"resp_a","object":"response","output":[{"type":"message"}]}`)
	if err := st.PutResponses([]*responses.Record{&a2}); err != nil {
		t.Fatal(err)
	}
	same(t, st, &a2)
	if err := st.DeleteResponse("resp_b"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Response("resp_b"); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("deleted: %v", err)
	}
	same(t, st, &a2)
	var many []*responses.Record
	for i := range 5 {
		many = append(many, &responses.Record{ID: fmt.Sprintf("resp_t%d", i), UserPath: "/", CreatedAt: base.Add(time.Duration(i) * time.Hour)})
	}
	if err := st.PutResponses(many); err != nil {
		t.Fatal(err)
	}
	// resp_a and resp_t0 are at base, resp_t1 an hour later.
	n, err := st.DeleteResponsesBefore(base.Add(90 * time.Minute))
	if err != nil || n != 3 {
		t.Fatalf("DeleteResponsesBefore: %d %v, want 3", n, err)
	}
	for _, id := range []string{"resp_a", "resp_t0", "resp_t1"} {
		if _, err := st.Response(id); !errors.Is(err, responses.ErrNotFound) {
			t.Fatalf("%s after the sweep: %v", id, err)
		}
	}
	for _, r := range many[2:] {
		same(t, st, r)
	}
}

// same fails t unless st holds want.
func same(t *testing.T, st responses.Storage, want *responses.Record) {
	t.Helper()
	got, err := st.Response(want.ID)
	if err != nil {
		t.Fatalf("Response(%s): %v", want.ID, err)
	}
	if got.ID != want.ID || got.UserPath != want.UserPath || !got.CreatedAt.Equal(want.CreatedAt) ||
		got.Provider != want.Provider || got.Native != want.Native || got.PreviousID != want.PreviousID ||
		!bytes.Equal(got.Input, want.Input) || !bytes.Equal(got.Response, want.Response) {
		t.Fatalf("Response(%s) = %+v, want %+v", want.ID, got, want)
	}
}

// ResponsesService checks the responses service over st: a kept record
// is readable at once and after the writer committed it, only by its own
// user path; one deleted while still queued never reaches the storage;
// Chain replays a chain's input and output items oldest first and refuses
// a chain with another path's response.
func ResponsesService(t *testing.T, st responses.Storage) {
	t.Helper()
	svc := responses.New(responses.Options{Storage: st})
	defer svc.Close()
	first := &responses.Record{ID: responses.NewID(), UserPath: "/u", Provider: "mock", Input: []byte(`"hi"`),
		Response: []byte(`{"output":[{"type":"message","id":"msg_1","role":"assistant","content":[{"type":"output_text","text":"hello"}]}]}`)}
	svc.Keep(first)
	if _, err := svc.Get("/u", first.ID); err != nil {
		t.Fatalf("queued: %v", err)
	}
	svc.Flush()
	if _, err := st.Response(first.ID); err != nil {
		t.Fatalf("committed: %v", err)
	}
	if _, err := svc.Get("/other", first.ID); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("another path: %v", err)
	}
	second := &responses.Record{ID: responses.NewID(), UserPath: "/u", Provider: "mock", PreviousID: first.ID,
		Input: []byte(`[{"role":"user","content":"again"}]`), Response: []byte(`{"output":[]}`)}
	svc.Keep(second)
	items, err := svc.Chain("/u", second.ID)
	if err != nil || len(items) != 3 {
		t.Fatalf("Chain: %d items, %v", len(items), err)
	}
	if !bytes.Contains(items[0], []byte(`"text":"hi"`)) || !bytes.Contains(items[1], []byte(`"hello"`)) ||
		!bytes.Contains(items[2], []byte(`again`)) {
		t.Fatalf("Chain: %s", items)
	}
	if _, err := svc.Chain("/other", second.ID); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("Chain of another path: %v", err)
	}
	if err := svc.Delete("/other", second.ID); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("Delete of another path: %v", err)
	}
	if err := svc.Delete("/u", second.ID); err != nil {
		t.Fatal(err)
	}
	svc.Flush()
	if _, err := st.Response(second.ID); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("deleted while queued, then committed: %v", err)
	}
	if _, err := svc.Chain("/u", second.ID); !errors.Is(err, responses.ErrNotFound) {
		t.Fatalf("Chain of a deleted response: %v", err)
	}
}
