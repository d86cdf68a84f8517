package e2e

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// TestPostgresKeysSurviveRestart: with `storage postgres`, a key created
// through the admin API, and a rate-limit rule and a virtual model
// written the same way, are still in force after a full restart on a
// fresh bbolt file: they came from PostgreSQL. The key's last-used time,
// queued at its use, was written at Stop.
func TestPostgresKeysSurviveRestart(t *testing.T) {
	clearEnv(t)
	dsn := pgtest.NewDatabase(t)
	block := func(file string) string {
		return mockBlock("storage " + filepath.Join(t.TempDir(), file) + "\nstorage postgres " + dsn)
	}
	g := startGateway(t, block("first.db"))
	k := createKey(t, g, `{"name":"pg-survivor","user_path":"/team/pg"}`)
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("before restart: %d %s", res.Status, res.Body)
	}
	if res := adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/team/pg","period":"hour","max_requests":7}`); res.Status != 200 {
		t.Fatalf("rule: %d %s", res.Status, res.Body)
	}

	g = restartGateway(t, block("second.db"))
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("after restart: %d %s", res.Status, res.Body)
	}
	var found bool
	for _, v := range adminCall(t, g, "GET", "/admin/auth-keys", "").JSON(t)["keys"].([]any) {
		if m := v.(map[string]any); m["id"] == k.ID {
			found = true
			if m["last_used_at"] == nil || m["name"] != "pg-survivor" {
				t.Fatalf("after restart: %v", m)
			}
		}
	}
	if !found {
		t.Fatal("key missing after restart")
	}
	var rule bool
	for _, v := range adminCall(t, g, "GET", "/admin/rate-limits", "").JSON(t)["rules"].([]any) {
		m := v.(map[string]any)
		if m["subject"] == "/team/pg" && m["max_requests"] == float64(7) {
			rule = true
		}
	}
	if !rule {
		t.Fatal("manual rate-limit rule lost across the restart")
	}

	// A config reload shares the key service of the database: a key
	// created just before it works right after.
	k2 := createKey(t, g, `{"name":"pg-reload"}`)
	if err := g.reload(t, block("second.db")+"\nuser_path_header X-Team"); err != nil {
		t.Fatal(err)
	}
	http.DefaultClient.CloseIdleConnections()
	for _, s := range []string{k.Secret, k2.Secret} {
		if res := request(t, "GET", g.URL+"/v1/usage", "", bearer(s)...); res.Status != 200 {
			t.Fatalf("after reload: %d %s", res.Status, res.Body)
		}
	}
}

// TestPostgresBatchSurvivesRestart: with `storage postgres`, a batch
// interrupted by a restart onto a fresh bbolt file resumes from
// PostgreSQL and completes, its output file readable.
func TestPostgresBatchSurvivesRestart(t *testing.T) {
	clearEnv(t)
	dsn := pgtest.NewDatabase(t)
	block := func(file string) string {
		return "master_key " + masterKey + "\nstorage " + filepath.Join(t.TempDir(), file) + "\nstorage postgres " + dsn +
			"\nprovider demo {\n type mock\n latency 120ms\n}\n"
	}
	g := startGateway(t, block("first.db"))
	c := openaiClient(g, masterKey)
	ctx := context.Background()
	f := uploadBatchFile(t, c, batchInput(12, "/v1/chat/completions", "mock-chat"))
	b, err := c.Batches.New(ctx, openai.BatchNewParams{
		InputFileID:      f.ID,
		Endpoint:         openai.BatchNewParamsEndpointV1ChatCompletions,
		CompletionWindow: openai.BatchNewParamsCompletionWindow24h,
	})
	if err != nil {
		t.Fatalf("create batch: %v", err)
	}
	waitBatch(t, c, b.ID, func(b *openai.Batch) bool { return b.RequestCounts.Completed >= 2 })

	g = restartGateway(t, block("second.db"))
	c = openaiClient(g, masterKey)
	after, err := c.Batches.Get(ctx, b.ID)
	if err != nil {
		t.Fatalf("batch lost across the restart: %v", err)
	}
	if after.RequestCounts.Completed >= 12 {
		t.Fatalf("the batch finished before the restart (%+v): the test proves nothing", after.RequestCounts)
	}
	done := waitBatch(t, c, b.ID, func(b *openai.Batch) bool { return b.Status == openai.BatchStatusCompleted })
	if done.RequestCounts.Completed != 12 || done.OutputFileID == "" {
		t.Fatalf("finished batch %+v", done)
	}
	resp, err := c.Files.Content(ctx, done.OutputFileID)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if n := bytes.Count(out, []byte("\n")); n != 12 {
		t.Fatalf("output has %d lines, want 12:\n%s", n, out)
	}
}

// pgProxy forwards TCP connections from a loopback port to the server of
// dsn, so a test can cut PostgreSQL off from the gateway. It returns dsn
// pointed at the proxy and cut, which closes the listener and every
// forwarded connection.
func pgProxy(t *testing.T, dsn string) (string, func()) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			go func() { _, _ = io.Copy(up, c); up.Close() }()
			go func() { _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	cut := func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
	t.Cleanup(cut)
	u.Host = l.Addr().String()
	return u.String(), cut
}

// TestPostgresDownAdminWritesAnswer503: once PostgreSQL stops answering,
// an admin write answers 503 storage_unavailable in the gateway error
// shape and changes nothing, while keys already loaded keep
// authenticating (they are in memory).
func TestPostgresDownAdminWritesAnswer503(t *testing.T) {
	clearEnv(t)
	dsn, cut := pgProxy(t, pgtest.NewDatabase(t))
	g := startGateway(t, mockBlock("storage "+filepath.Join(t.TempDir(), "mg.db")+"\nstorage postgres "+dsn))
	k := createKey(t, g, `{"name":"before"}`)
	cut()

	res := adminCall(t, g, "POST", "/admin/auth-keys", `{"name":"during"}`)
	res.ExpectErr(t, 503, "provider_error", "storage_unavailable")
	if res.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", res.Header)
	}
	adminCall(t, g, "PUT", "/admin/rate-limits", `{"user_path":"/team","period":"minute","max_requests":3}`).
		ExpectErr(t, 503, "provider_error", "storage_unavailable")
	adminCall(t, g, "PUT", "/admin/budgets/%2Fteam/daily", `{"amount":5}`).
		ExpectErr(t, 503, "provider_error", "storage_unavailable")
	for _, v := range adminCall(t, g, "GET", "/admin/auth-keys", "").JSON(t)["keys"].([]any) {
		if v.(map[string]any)["name"] == "during" {
			t.Fatal("a key refused with 503 is listed")
		}
	}
	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, bearer(k.Secret)...); res.Status != 200 {
		t.Fatalf("a loaded key stopped working while PostgreSQL is down: %d %s", res.Status, res.Body)
	}
}
