package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	bolt "go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// activeApp returns the modelgate app of the running config.
func activeApp(t *testing.T) *caddymodule.App {
	t.Helper()
	v, err := caddy.ActiveContext().App("modelgate")
	if err != nil {
		t.Fatal(err)
	}
	return v.(*caddymodule.App)
}

// chat sends one chat completion for model, without a credential, and
// returns the status and body, or status 0 and the error when no answer
// arrived. send retries a request whose connection broke before any
// answer: while Caddy swaps configs, a connection the old server accepted
// can be closed unanswered (plain Caddy with a `respond` site does the
// same).
func chat(base, model string) (int, string) {
	res, err := send("POST", base+"/v1/chat/completions", `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`)
	if err != nil {
		return 0, err.Error()
	}
	return res.Status, string(res.Body)
}

// TestReloadKeepsServingAndData reloads the config several times, both
// in-process and through Caddy's admin /load, while requests keep flowing:
// no request fails, the store is never locked out, data written before the
// reloads is still there after them, and a clean stop flushes what is
// queued.
func TestReloadKeepsServingAndData(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, "provider one {\n type mock\n }")
	st := activeApp(t).Store()
	if st == nil {
		t.Fatal("store not open after start")
	}
	if !st.Enqueue(store.Write{Bucket: "e2e", Key: []byte("before"), Value: []byte("reload")}) {
		t.Fatal("enqueue refused")
	}
	if err := st.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}

	// Traffic during the reloads.
	var failures atomic.Int64
	var sent atomic.Int64
	stop := make(chan struct{})
	var stopOnce sync.Once
	var wg sync.WaitGroup
	halt := func() { stopOnce.Do(func() { close(stop) }); wg.Wait() }
	defer halt() // also on a failed assertion, so Stop never waits on traffic
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				status, body := chat(g.URL, "one/mock-chat")
				sent.Add(1)
				if status != 200 {
					failures.Add(1)
					t.Logf("request during reload: %d %s", status, body)
				}
			}
		}()
	}

	for i := 0; i < 3; i++ {
		block := fmt.Sprintf("provider one {\n type mock\n }\nprovider two%d {\n type mock\n }", i)
		if err := g.reload(t, block); err != nil {
			t.Fatalf("in-process reload %d: %v", i, err)
		}
	}
	// Through the admin API, as `modelgate reload` does.
	cf := caddyfile("provider one {\n type mock\n }\nprovider three {\n type mock\n }", portOf(g.URL), portOf(g.AdminURL), g.DataDir)
	resp, err := http.Post(g.AdminURL+"/load", "text/caddyfile", bytes.NewReader([]byte(cf)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("admin /load: %d %s", resp.StatusCode, body)
	}
	time.Sleep(100 * time.Millisecond)
	halt()
	if failures.Load() != 0 {
		t.Fatalf("%d of %d requests failed during reloads", failures.Load(), sent.Load())
	}
	if sent.Load() == 0 {
		t.Fatal("no traffic was sent during the reloads")
	}

	// The new config serves its new provider.
	if status, body := chat(g.URL, "three/mock-chat"); status != 200 {
		t.Fatalf("new provider after reload: %d %s", status, body)
	}

	// Data written before the reloads is still readable.
	st = activeApp(t).Store()
	var got []byte
	if err := st.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("e2e")); b != nil {
			got = append(got, b.Get([]byte("before"))...)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if string(got) != "reload" {
		t.Fatalf("stored value after reloads = %q", got)
	}

	// A clean stop flushes everything queued.
	for i := 0; i < 500; i++ {
		st.Enqueue(store.Write{Bucket: "e2e", Key: []byte(fmt.Sprintf("k%03d", i)), Value: []byte("v")})
	}
	if err := caddy.Stop(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(g.DataDir, "modelgate.db"), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		t.Fatalf("store still locked after stop: %v", err)
	}
	defer db.Close()
	n := 0
	_ = db.View(func(tx *bolt.Tx) error {
		n = tx.Bucket([]byte("e2e")).Stats().KeyN
		return nil
	})
	if n != 501 {
		t.Fatalf("after clean stop: %d records, want 501", n)
	}
}

// TestBadConfigAbortsStartup checks that invalid settings stop a config
// load with a message naming the setting, and that a failed reload leaves
// the running config serving.
func TestBadConfigAbortsStartup(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, "provider one {\n type mock\n }")
	cases := []struct {
		name, block, want string
	}{
		{"unknown provider type", "provider x {\n type nosuch\n }", "nosuch"},
		{"bad base url", "provider x {\n type openai\n api_key k\n base_url ftp://x\n }", "base_url"},
		{"missing api key", "provider x {\n type groq\n }", "api_key"},
		{"unknown yaml key", "config_file " + writeFile(t, "bad.yaml", "server:\n  user_path_headr: X\n"), "line 2"},
		{"bad env bool", "", "ADMIN_UI_ENABLED"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "bad env bool" {
				t.Setenv("ADMIN_UI_ENABLED", "maybe")
			}
			err := g.reload(t, c.block)
			if err == nil {
				t.Fatal("config accepted")
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not mention %q", err, c.want)
			}
			if status, body := chat(g.URL, "one/mock-chat"); status != 200 {
				t.Fatalf("old config stopped serving after a failed reload: %d %s", status, body)
			}
		})
	}
}
