package sessions

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// memStorage is a Storage in memory.
type memStorage map[string]Limit

func (m memStorage) SessionLimits() ([]Limit, error) {
	var out []Limit
	for _, l := range m {
		out = append(out, l)
	}
	return out, nil
}
func (m memStorage) PutSessionLimit(l Limit) error     { m[l.UserPath] = l; return nil }
func (m memStorage) DeleteSessionLimit(p string) error { delete(m, p); return nil }

func newGuard(t *testing.T, list ...Limit) *Guard {
	t.Helper()
	g, err := New(Options{Storage: memStorage{}})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := FromConfig(list)
	if err != nil {
		t.Fatal(err)
	}
	g.SetConfig(cfg)
	return g
}

// serve admits one request and completes it with o; it returns the
// refusal, if any.
func serve(g *Guard, path, session string, o Outcome) *Refusal {
	a, r := g.Admit(path, session)
	if r != nil {
		return r
	}
	a.Done(o)
	return nil
}

func TestMaxRequests(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/team", MaxRequests: 3})
	for i := range 3 {
		if r := serve(g, "/team/a", "s1", Outcome{}); r != nil {
			t.Fatalf("request %d refused: %v", i+1, r)
		}
	}
	r := serve(g, "/team/a", "s1", Outcome{})
	if r == nil || r.Limit != "max_requests" {
		t.Fatalf("4th request: %v", r)
	}
	if want := "session s1 reached max_requests=3 for /team; start a new session (new session id) to continue"; r.Error() != want {
		t.Errorf("message %q", r.Error())
	}
	if l := g.Limited("/team/a", "s1"); l != "max_requests=3" {
		t.Errorf("limited %q", l)
	}
	if l := g.Limited("/team/a", "s2"); l != "" {
		t.Errorf("an unlimited session reads %q", l)
	}
	if r.RetryAfter != int64(DefaultIdle/time.Second) {
		t.Errorf("retry after %d", r.RetryAfter)
	}
	if r := serve(g, "/team/a", "s2", Outcome{}); r != nil {
		t.Errorf("a new session is refused: %v", r)
	}
	if r := serve(g, "/other", "s1", Outcome{}); r != nil {
		t.Errorf("an uncovered path is refused: %v", r)
	}
	if a, r := g.Admit("/team", ""); a != nil || r != nil {
		t.Errorf("a request without session: %v %v", a, r)
	}
}

func TestUncountedIsGivenBack(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/", MaxRequests: 1})
	for range 3 {
		if r := serve(g, "/x", "s", Outcome{Uncounted: true}); r != nil {
			t.Fatalf("refused: %v", r)
		}
	}
	serve(g, "/x", "s", Outcome{})
	if r := serve(g, "/x", "s", Outcome{}); r == nil {
		t.Fatal("the counted request did not count")
	}
}

func TestMaxCost(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/", MaxCost: 0.01})
	serve(g, "/", "s", Outcome{Cost: 0.006})
	if r := serve(g, "/", "s", Outcome{Cost: 0.006}); r != nil {
		t.Fatalf("refused under the limit: %v", r)
	}
	r := serve(g, "/", "s", Outcome{})
	if r == nil || r.Limit != "max_cost" || !strings.Contains(r.Error(), "max_cost=0.01") {
		t.Fatalf("over the cost: %v", r)
	}
}

func TestMaxRepeats(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/", MaxRepeats: 3})
	sig := ToolCallSignature([]byte(`{"choices":[{"message":{"tool_calls":[{"function":{"name":"ls","arguments":"{\"a\":1,\"b\":2}"}}]}}]}`))
	same := ToolCallSignature([]byte(`{"choices":[{"message":{"tool_calls":[{"function":{"name":"ls","arguments":"{\"b\":2, \"a\":1}"}}]}}]}`))
	if sig == "" || sig != same {
		t.Fatalf("signatures %q %q", sig, same)
	}
	serve(g, "/", "s", Outcome{Signature: sig})
	serve(g, "/", "s", Outcome{Signature: sig})
	serve(g, "/", "s", Outcome{}) // a text answer breaks the run
	serve(g, "/", "s", Outcome{Signature: sig})
	serve(g, "/", "s", Outcome{Signature: "other"}) // so does another call
	serve(g, "/", "s", Outcome{Signature: sig})
	if r := serve(g, "/", "s", Outcome{Signature: sig}); r != nil {
		t.Fatalf("refused after two repeats: %v", r)
	}
	if r := serve(g, "/", "s", Outcome{Signature: sig}); r != nil {
		t.Fatalf("the third repeat itself is refused: %v", r)
	}
	r := serve(g, "/", "s", Outcome{})
	if r == nil || r.Limit != "max_repeats" {
		t.Fatalf("after three repeats: %v", r)
	}
}

func TestErrorRepeats(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/", MaxRepeats: 2})
	e := ErrorSignature(400, "invalid_value", "bad tool")
	serve(g, "/", "s", Outcome{Signature: e})
	serve(g, "/", "s", Outcome{Signature: e})
	if r := serve(g, "/", "s", Outcome{}); r == nil || r.Limit != "max_repeats" {
		t.Fatalf("after two identical errors: %v", r)
	}
	serve(g, "/", "t", Outcome{Signature: e})
	serve(g, "/", "t", Outcome{Signature: ErrorSignature(400, "invalid_value", "other")})
	if r := serve(g, "/", "t", Outcome{}); r != nil {
		t.Fatalf("two different errors: %v", r)
	}
}

func TestPerChild(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/customers", MaxRequests: 1, PerChild: true})
	if r := serve(g, "/customers/alice/app", "s", Outcome{}); r != nil {
		t.Fatal(r)
	}
	r := serve(g, "/customers/alice/other", "s", Outcome{})
	if r == nil || r.Scope != "/customers/alice" {
		t.Fatalf("same child, same session: %v", r)
	}
	if r := serve(g, "/customers/bob", "s", Outcome{}); r != nil {
		t.Fatalf("another child shares the count: %v", r)
	}
	for range 3 {
		if r := serve(g, "/customers", "s", Outcome{}); r != nil {
			t.Fatalf("the template's own path is limited: %v", r)
		}
	}
}

func TestAdminLimits(t *testing.T) {
	st := memStorage{}
	g, err := New(Options{Storage: st})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := FromConfig([]Limit{{UserPath: "/Team", MaxRequests: 5}})
	g.SetConfig(cfg)
	if _, err := g.Put(Limit{UserPath: "/team", MaxRepeats: 1}); err == nil {
		t.Fatal("max_repeats 1 accepted")
	}
	var fe *FieldError
	if _, err := g.Put(Limit{UserPath: "/team"}); !errors.As(err, &fe) || fe.Field != "max_requests" {
		t.Fatalf("empty limit: %v", err)
	}
	if _, err := g.Put(Limit{UserPath: "team//x", MaxRequests: 1}); !errors.As(err, &fe) || fe.Field != "user_path" {
		t.Fatalf("bad path: %v", err)
	}
	if _, err := g.Put(Limit{UserPath: "/team", MaxRequests: 1, Source: SourceConfig}); err != nil {
		t.Fatal(err)
	}
	l := g.List()
	if len(l) != 1 || l[0].Source != SourceManual || l[0].MaxRequests != 1 {
		t.Fatalf("list %+v", l)
	}
	other, _ := New(Options{Storage: st})
	if l := other.List(); len(l) != 1 || l[0].UserPath != "/team" {
		t.Fatalf("another process sees %+v", l)
	}
	if err := g.Delete("/TEAM"); err != nil {
		t.Fatal(err)
	}
	if err := g.Delete("/team"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if l := g.List(); len(l) != 1 || l[0].Source != SourceConfig || l[0].MaxRequests != 5 {
		t.Fatalf("after delete %+v", l)
	}
	if err := other.Reload(); err != nil || len(other.List()) != 0 {
		t.Fatalf("reload: %v %+v", err, other.List())
	}
	if _, err := FromConfig([]Limit{{UserPath: "/a", MaxCost: 1}, {UserPath: "/A", MaxCost: 2}}); err == nil {
		t.Fatal("duplicate config accepted")
	}
}

func TestIdleAndBounded(t *testing.T) {
	now := time.Unix(1000, 0)
	g, _ := New(Options{MaxSessions: 2, Idle: time.Hour, Now: func() time.Time { return now }})
	cfg, _ := FromConfig([]Limit{{UserPath: "/", MaxRequests: 1}})
	g.SetConfig(cfg)
	serve(g, "/", "a", Outcome{})
	if serve(g, "/", "a", Outcome{}) == nil {
		t.Fatal("not limited")
	}
	now = now.Add(time.Hour)
	if r := serve(g, "/", "a", Outcome{}); r != nil {
		t.Fatalf("an idle session is still counted: %v", r)
	}
	serve(g, "/", "b", Outcome{})
	serve(g, "/", "c", Outcome{})
	if n := len(g.t.m); n != 2 {
		t.Fatalf("%d sessions kept, want 2", n)
	}
}

func TestSignatures(t *testing.T) {
	msg := ToolCallSignature([]byte(`{"content":[{"type":"text","text":"hi"},{"type":"tool_use","name":"ls","input":{"b":1,"a":[2]}}]}`))
	resp := ToolCallSignature([]byte(`{"output":[{"type":"function_call","name":"ls","arguments":"{\"a\":[2],\"b\":1}"}]}`))
	if msg != `tool:ls {"a":[2],"b":1}` || msg != resp {
		t.Fatalf("messages %q responses %q", msg, resp)
	}
	if s := ToolCallSignature([]byte(`{"choices":[{"message":{"content":"text"}}]}`)); s != "" {
		t.Fatalf("a text answer has signature %q", s)
	}
	if s := ToolCallSignature([]byte(`not json`)); s != "" {
		t.Fatalf("junk has signature %q", s)
	}
}

func TestConcurrentAdmissions(t *testing.T) {
	g := newGuard(t, Limit{UserPath: "/", MaxRequests: 50})
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for range 200 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a, r := g.Admit("/x", "s"); r == nil {
				admitted.Add(1)
				a.Done(Outcome{Cost: 0.001})
			}
		}()
	}
	wg.Wait()
	if n := admitted.Load(); n != 50 {
		t.Fatalf("%d admitted, want 50", n)
	}
}

func TestRaisedLimitClearsMarker(t *testing.T) {
	g := newGuard(t)
	if _, err := g.Put(Limit{UserPath: "/", MaxRequests: 1}); err != nil {
		t.Fatal(err)
	}
	serve(g, "/a", "s", Outcome{})
	if serve(g, "/a", "s", Outcome{}) == nil || g.Limited("/a", "s") != "max_requests=1" {
		t.Fatal("not limited")
	}
	if _, err := g.Put(Limit{UserPath: "/", MaxRequests: 5}); err != nil {
		t.Fatal(err)
	}
	if r := serve(g, "/a", "s", Outcome{}); r != nil || g.Limited("/a", "s") != "" {
		t.Fatalf("after raising: %v %q", r, g.Limited("/a", "s"))
	}
}
