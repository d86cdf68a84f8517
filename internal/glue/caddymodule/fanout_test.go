package caddymodule

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
	"github.com/modelgate/modelgate/internal/surface/admin"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// sharedKeys is a keys.Backend in memory shared by several key services,
// as processes share a database.
type sharedKeys struct {
	mu   sync.Mutex
	data map[string][]byte
}

func newSharedKeys() *sharedKeys { return &sharedKeys{data: map[string][]byte{}} }

func (m *sharedKeys) Load(fn func(k, v []byte) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, v := range m.data {
		if err := fn([]byte(k), v); err != nil {
			return err
		}
	}
	return nil
}

func (m *sharedKeys) Put(k, v []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.data[string(k)] = append([]byte(nil), v...)
	return nil
}

func (m *sharedKeys) Delete(ks ...[]byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range ks {
		delete(m.data, string(k))
	}
	return nil
}

func (m *sharedKeys) PutLater(k, v []byte) bool { return m.Put(k, v) == nil }

// process is one gateway process of a test: its own Redis client (its own
// process id), hub and key service, and the fan-out joining them.
type process struct {
	c       *redisstore.Client
	hub     *audit.Hub
	keys    *keys.Service
	f       *fanout
	reloads atomic.Int64
}

// newProcess starts a process over the Redis prefix and key backend.
func newProcess(t *testing.T, url, prefix string, kb keys.Backend, every time.Duration) *process {
	t.Helper()
	c, err := redisstore.Open(context.Background(), redisstore.Options{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	ks, err := keys.Open(kb, keys.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &process{c: c, hub: audit.NewHub(256), keys: ks}
	p.f = newFanout(c, p.hub, map[string]func() error{
		admin.ChangedKeys: func() error { p.reloads.Add(1); return ks.Reload() },
	}, nil)
	if every > 0 {
		p.f.every = every
	}
	p.f.start()
	t.Cleanup(func() {
		p.f.stop()
		_ = c.Destruct()
	})
	return p
}

// waitSubscribed waits until n clients listen on both bus topics.
func waitSubscribed(t *testing.T, c *redisstore.Client, n int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := c.R.PubSubNumSub(context.Background(), c.Key("bus", topicLive), c.Key("bus", topicChanges)).Result()
		if err != nil {
			t.Fatal(err)
		}
		if got[c.Key("bus", topicLive)] >= n && got[c.Key("bus", topicChanges)] >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("subscribers %v, want %d on each topic", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestKeyRevokedThroughOneProcessIsRefusedAtTheOtherWithinASecond(t *testing.T) {
	url, prefix := redistest.New(t)
	kb := newSharedKeys()
	one := newProcess(t, url, prefix, kb, 0)
	two := newProcess(t, url, prefix, kb, 0)
	waitSubscribed(t, one.c, 2)

	cfg := config.Defaults()
	api := admin.New(admin.Options{Config: cfg, Keys: one.keys, Changes: one.f})
	call := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		var req *http.Request
		if body != "" {
			req = httptest.NewRequest(method, path, strings.NewReader(body))
		} else {
			req = httptest.NewRequest(method, path, nil)
		}
		api.ServeHTTP(rec, req)
		return rec
	}
	res := call("POST", "/admin/auth-keys", `{"name":"ci"}`)
	if res.Code != http.StatusCreated {
		t.Fatalf("create: %d %s", res.Code, res.Body)
	}
	secret := jsonField(t, res.Body.String(), "key")
	id := jsonField(t, res.Body.String(), "id")
	within(t, time.Second, "the key created through one is accepted at two", func() bool {
		return two.keys.Authenticate(secret).State == keys.StateActive
	})

	start := time.Now()
	if res := call("POST", "/admin/auth-keys/"+id+"/deactivate", ""); res.Code != http.StatusOK {
		t.Fatalf("deactivate: %d %s", res.Code, res.Body)
	}
	within(t, time.Second, "the key revoked through one is refused at two", func() bool {
		return two.keys.Authenticate(secret).State == keys.StateDeactivated
	})
	t.Logf("revocation in force at the other process after %v", time.Since(start))

	if res := call("DELETE", "/admin/auth-keys/"+id, ""); res.Code != http.StatusNoContent {
		t.Fatalf("delete: %d %s", res.Code, res.Body)
	}
	within(t, time.Second, "the key deleted through one is unknown at two", func() bool {
		return !two.keys.Authenticate(secret).Found
	})
	// A process does not reload on its own announcements.
	if n := one.reloads.Load(); n != 0 {
		t.Fatalf("the announcing process reloaded %d times", n)
	}
}

func TestPeriodicReloadCatchesALostChange(t *testing.T) {
	url, prefix := redistest.New(t)
	kb := newSharedKeys()
	one := newProcess(t, url, prefix, kb, 0)
	two := newProcess(t, url, prefix, kb, 100*time.Millisecond)
	// Created without an announcement, as if the message were lost.
	_, secret, err := one.keys.Create(keys.NewKey{Name: "quiet"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, 2*time.Second, "the periodic reload took the key in", func() bool {
		return two.keys.Authenticate(secret).State == keys.StateActive
	})
}

func TestLiveLogShowsRequestsServedByTheOtherProcess(t *testing.T) {
	url, prefix := redistest.New(t)
	kb := newSharedKeys()
	one := newProcess(t, url, prefix, kb, 0)
	two := newProcess(t, url, prefix, kb, 0)
	three := newProcess(t, url, prefix, kb, 0)
	waitSubscribed(t, one.c, 3)

	viewer, _ := two.hub.Subscribe(0, false)
	defer viewer.Close()
	// Requests served by one and three, recorded as the audit stage does.
	for i, p := range []*process{one, three} {
		rec := audit.NewRecorder(nopEntries{}, nopUsage{}, p.hub)
		e := &audit.Entry{Timestamp: time.Now(), Method: "POST", Path: "/v1/chat/completions",
			RequestID: []string{"req-one", "req-three"}[i], StatusCode: 200}
		rec.Start(e)
		rec.Finish(e, &audit.UsageRecord{Timestamp: time.Now(), Model: "gpt-test"})
	}
	var got []audit.LiveEvent
	within(t, 2*time.Second, "process two's live log shows the six events of one and three", func() bool {
		select {
		case <-viewer.Ready():
		case <-time.After(10 * time.Millisecond):
		}
		var err error
		got, err = viewer.Read(got)
		if err != nil {
			t.Fatal(err)
		}
		return len(got) >= 6
	})
	seen := map[string]int{}
	for i, ev := range got {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("sequence ids %d at %d: not contiguous local ids", ev.Seq, i)
		}
		if ev.Kind == audit.EventAudit {
			seen[ev.Audit.RequestID+"/"+ev.Audit.Phase]++
		} else if ev.Usage.Model != "gpt-test" {
			t.Fatalf("usage event %+v", ev.Usage)
		}
	}
	for _, k := range []string{"req-one/start", "req-one/complete", "req-three/start", "req-three/complete"} {
		if seen[k] != 1 {
			t.Fatalf("previews seen %v; want each of one and three's once", seen)
		}
	}
	// No echo: one's hub holds its own three events and three's three.
	time.Sleep(100 * time.Millisecond)
	if n := one.hub.Last(); n != 6 {
		t.Fatalf("process one's hub has %d events, want 6 (its own once, three's)", n)
	}
}

func TestFanoutsSharingAClientBothReceiveAndLeave(t *testing.T) {
	url, prefix := redistest.New(t)
	kb := newSharedKeys()
	one := newProcess(t, url, prefix, kb, 0)
	two := newProcess(t, url, prefix, kb, 0)
	// A config reload: a second app over two's client starts before the
	// first stops.
	hub2 := audit.NewHub(16)
	next := newFanout(two.c, hub2, nil, nil)
	next.start()
	defer next.stop()
	waitSubscribed(t, one.c, 2)
	one.hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, RequestID: "r1"})
	within(t, 2*time.Second, "both apps of process two got the event", func() bool {
		return two.hub.Last() == 1 && hub2.Last() == 1
	})
	two.f.stop()
	one.hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, RequestID: "r2"})
	within(t, 2*time.Second, "the app still running got the next event", func() bool { return hub2.Last() == 2 })
	time.Sleep(50 * time.Millisecond)
	if two.hub.Last() != 1 {
		t.Fatalf("a stopped app's hub still receives: %d events", two.hub.Last())
	}
}

func TestBusRouterIgnoresOwnAndMalformedMessages(t *testing.T) {
	url, prefix := redistest.New(t)
	one := newProcess(t, url, prefix, newSharedKeys(), 0)
	r := &busRouter{c: one.c, fs: map[*fanout]struct{}{one.f: {}}}
	r.onLive(one.c.ID(), []byte(`[{"k":"audit","a":{}}]`))
	r.onLive("other", []byte(`not json`))
	r.onLive("other", []byte(`[{"k":"heartbeat"}]`))
	if one.hub.Last() != 0 {
		t.Fatalf("hub took %d events", one.hub.Last())
	}
	r.onChange(one.c.ID(), []byte(admin.ChangedKeys))
	r.onChange("other", []byte("no-such-domain"))
	time.Sleep(50 * time.Millisecond)
	if n := one.reloads.Load(); n != 0 {
		t.Fatalf("reloaded %d times", n)
	}
	r.onChange("other", []byte(admin.ChangedKeys))
	within(t, time.Second, "a change from another process reloads", func() bool { return one.reloads.Load() == 1 })
}

func TestChangedWithoutSharedDomainsOrFanoutIsANoOp(t *testing.T) {
	var f *fanout
	f.Changed(admin.ChangedKeys) // no Redis: nil fan-out
	f.stop()
	if f.LiveDropped() != 0 {
		t.Fatal("nil fan-out dropped events")
	}
	a := &App{}
	if a.changeNotifier() != nil {
		t.Fatal("an app without Redis has a change notifier")
	}
}

// within polls cond until it holds or d passes.
func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// jsonField returns a top-level string field of a JSON object.
func jsonField(t *testing.T, body, name string) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	v, _ := m[name].(string)
	if v == "" {
		t.Fatalf("no %s in %s", name, body)
	}
	return v
}

// nopEntries and nopUsage take every record and keep none (they answer
// nothing else).
type nopEntries struct{ audit.EntryStorage }

func (nopEntries) AppendEntry(*audit.Entry) bool { return true }

type nopUsage struct{ audit.UsageStorage }

func (nopUsage) AppendUsage(*audit.UsageRecord) bool { return true }

func TestAppWiresTheFanoutFromItsBackends(t *testing.T) {
	url, prefix := redistest.New(t)
	c, err := redisstore.Open(context.Background(), redisstore.Options{URL: url, Prefix: prefix})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destruct()
	ks, err := keys.Open(newSharedKeys(), keys.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hub := audit.NewHub(16)
	a := &App{logger: zap.NewNop(), keySvc: ks, audit: new(atomic.Pointer[auditParts])}
	a.audit.Store(&auditParts{hub: hub})

	a.startFanout() // no Redis: nothing
	if a.fanout != nil || a.changeNotifier() != nil {
		t.Fatal("a fan-out without Redis")
	}

	a.redis = c
	a.startFanout() // Redis without PostgreSQL: live events only
	if a.fanout == nil || a.fanout.hub != hub || len(a.fanout.reloaders) != 0 {
		t.Fatalf("fan-out %+v", a.fanout)
	}
	a.stopFanout()

	a.pg = &pgstore.DB{} // shared storage: keys reload too
	a.startFanout()
	defer a.stopFanout()
	if _, ok := a.fanout.reloaders[admin.ChangedKeys]; !ok || len(a.fanout.reloaders) != 1 {
		t.Fatalf("reloaders %v", a.fanout.reloaders)
	}
	if a.changeNotifier() == nil {
		t.Fatal("no change notifier with Redis and PostgreSQL")
	}
	// The hub forwards to the bus: another process sees its events.
	other := newProcess(t, url, prefix, newSharedKeys(), 0)
	waitSubscribed(t, c, 2)
	hub.PublishAudit(&audit.AuditPreview{Phase: audit.PhaseStart, RequestID: "from-app"})
	within(t, 2*time.Second, "the other process got the app's event", func() bool { return other.hub.Last() == 1 })
}

// TestBusDownReloadsFromSharedStorage: while the bus's server does not
// answer, a process cannot hear of changes and reloads every shared
// domain at the bus-check pace instead, so a key revoked elsewhere is
// refused within about a second, not at the next periodic reload.
func TestBusDownReloadsFromSharedStorage(t *testing.T) {
	kb := newSharedKeys()
	url, prefix := redistest.New(t)
	one := newProcess(t, url, prefix, kb, 0)
	// Nothing listens on this port: the other process's bus is down.
	two := newProcess(t, "redis://127.0.0.1:1/0", "mgtest:busdown:", kb, time.Hour)
	k, secret, err := one.keys.Create(keys.NewKey{Name: "revoked"})
	if err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, "the process without a bus took the key in", func() bool {
		return two.keys.Authenticate(secret).State == keys.StateActive
	})
	if _, err := one.keys.Update(k.ID, keys.Changes{Enabled: new(false)}); err != nil {
		t.Fatal(err)
	}
	within(t, 10*time.Second, "the process without a bus refused the revoked key", func() bool {
		return two.keys.Authenticate(secret).State != keys.StateActive
	})
}
