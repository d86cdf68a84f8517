package e2e

// A safe first run: with no key configured the model endpoints answer only
// clients on this machine, and secrets written as runtime placeholders
// never reach Caddy's JSON config, its autosave file or its admin API.

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
	"github.com/modelgate/modelgate/internal/testkit/redistest"
)

// startWithGlobals starts a gateway like startGateway, with extra global
// options; the globals "persist" instead leaves out "persist_config off",
// so Caddy saves the config it runs (to caddy.ConfigAutosavePath).
func startWithGlobals(t *testing.T, globals, modelgateBlock string) (*gateway, []byte) {
	t.Helper()
	g := &gateway{DataDir: t.TempDir()}
	ports := freePorts(t, 2)
	g.URL = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	g.AdminURL = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	cf := caddyfile(modelgateBlock, ports[0], ports[1], g.DataDir)
	if globals == "persist" {
		cf, globals = strings.Replace(cf, "\tpersist_config off\n", "", 1), ""
	}
	cf = strings.Replace(cf, "{\n", "{\n"+globals+"\n", 1)
	cfgJSON := adapt(t, cf)
	if err := caddy.Load(cfgJSON, true); err != nil {
		t.Fatalf("starting gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping gateway: %v", err)
		}
	})
	waitHealthy(t, g.URL)
	return g, cfgJSON
}

// TestOpenModeAnswersOnlyLoopback: without a master key or managed keys
// the model endpoints serve clients on a loopback address; a client
// elsewhere (here presented by a trusted proxy) gets 401
// master_key_required, told not to retry, in its API's shape.
func TestOpenModeAnswersOnlyLoopback(t *testing.T) {
	clearEnv(t)
	g, _ := startWithGlobals(t, "\tservers {\n\t\ttrusted_proxies static private_ranges\n\t}", "provider demo {\n type mock\n}\n")

	if res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat); res.Status != 200 {
		t.Fatalf("loopback client: %d %s", res.Status, res.Body)
	}
	remote := []string{"X-Forwarded-For", "203.0.113.9"}
	for _, c := range []struct{ method, path, body, wantType string }{
		{"POST", "/v1/chat/completions", mockChat, "authentication_error"},
		{"GET", "/v1/models", "", "authentication_error"},
		{"POST", "/v1/messages", `{"model":"mock-chat","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, "authentication_error"},
	} {
		res := request(t, c.method, g.URL+c.path, c.body, remote...)
		if res.Status != 401 || !strings.Contains(string(res.Body), "master_key_required") && !strings.Contains(string(res.Body), "GATEWAY_MASTER_KEY") {
			t.Errorf("%s %s from a remote client: %d %s", c.method, c.path, res.Status, res.Body)
		}
		if !strings.Contains(string(res.Body), c.wantType) {
			t.Errorf("%s %s: body %s lacks %s", c.method, c.path, res.Body, c.wantType)
		}
		if got := res.Header.Get("X-Should-Retry"); got != "false" {
			t.Errorf("%s %s: X-Should-Retry %q", c.method, c.path, got)
		}
	}
	if res := request(t, "GET", g.URL+"/health", "", remote...); res.Status != 200 {
		t.Errorf("/health from a remote client: %d", res.Status)
	}
	// A remote client with a loopback proxy chain still counts as remote.
	if res := request(t, "GET", g.URL+"/v1/models", "", "X-Forwarded-For", "203.0.113.9, 127.0.0.1"); res.Status != 401 {
		t.Errorf("remote client behind a loopback hop: %d", res.Status)
	}
}

// TestHeadRootAnswersAtOnce: Claude Code probes the base URL with HEAD /;
// it gets an answer straight away (refused without a key, with no body).
func TestHeadRootAnswersAtOnce(t *testing.T) {
	g := startMockGateway(t)
	start := time.Now()
	res := request(t, "HEAD", g.URL+"/", "")
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("HEAD / took %v", d)
	}
	if res.Status != 401 || len(res.Body) != 0 || res.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("HEAD /: %d %q retry %q", res.Status, res.Body, res.Header.Get("X-Should-Retry"))
	}
}

// TestSecretPlaceholdersStayOutOfConfig: master_key and a provider's
// api_key written as {env.*} placeholders work, and neither the adapted
// JSON, autosave.json nor GET /config/ on Caddy's admin API contains them.
func TestSecretPlaceholdersStayOutOfConfig(t *testing.T) {
	clearEnv(t)
	const master, provKey = "mg-master-placeholder-7f3a9c", "sk-prov-placeholder-51d2e8"
	t.Setenv("MG_E2E_MASTER", master)
	t.Setenv("MG_E2E_PROVIDER", provKey)

	var mu sync.Mutex
	var seenAuth []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seenAuth = append(seenAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/models") {
			fmt.Fprint(w, `{"object":"list","data":[{"id":"up-model","object":"model","created":1,"owned_by":"x"}]}`)
			return
		}
		fmt.Fprint(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"up-model","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}))
	t.Cleanup(up.Close)

	autosave := filepath.Join(t.TempDir(), "autosave.json")
	old := caddy.ConfigAutosavePath
	caddy.ConfigAutosavePath = autosave
	t.Cleanup(func() { caddy.ConfigAutosavePath = old })

	block := "master_key {env.MG_E2E_MASTER}\n" + providerBlock("up", "openai", "{env.MG_E2E_PROVIDER}", up.URL+"/v1")
	g, cfgJSON := startWithGlobals(t, "persist", block)

	if res := request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"up-model","messages":[{"role":"user","content":"hi"}]}`, bearer(master)...); res.Status != 200 {
		t.Fatalf("with the master key from the placeholder: %d %s", res.Status, res.Body)
	}
	if res := request(t, "GET", g.URL+"/v1/models", ""); res.Status != 401 {
		t.Errorf("without a key: %d", res.Status)
	}
	mu.Lock()
	sent := strings.Join(seenAuth, "\n")
	mu.Unlock()
	if !strings.Contains(sent, "Bearer "+provKey) {
		t.Errorf("the upstream never saw the provider key from the placeholder: %q", sent)
	}

	cfgRes := request(t, "GET", g.AdminURL+"/config/", "")
	saved, err := os.ReadFile(autosave)
	if err != nil {
		t.Fatalf("autosave.json: %v", err)
	}
	for name, text := range map[string][]byte{"adapt output": cfgJSON, "autosave.json": saved, "GET /config/": cfgRes.Body} {
		if len(text) < 50 {
			t.Errorf("%s is nearly empty: %s", name, text)
		}
		for _, secret := range []string{master, provKey} {
			if strings.Contains(string(text), secret) {
				t.Errorf("%s contains a secret", name)
			}
		}
		if !strings.Contains(string(text), "{env.MG_E2E_MASTER}") {
			t.Errorf("%s lacks the placeholder", name)
		}
	}
}

// TestExampleCaddyfileKeepsSecretsOut: the example reads the master key as
// a runtime placeholder, so adapting it with keys in the environment puts
// none of them in the JSON; its access log deletes every header Caddy
// does not redact itself that can carry a key (caddymodule.CredentialLogFields).
func TestExampleCaddyfileKeepsSecretsOut(t *testing.T) {
	clearEnv(t)
	const master, prov = "mg-example-master-93be11", "sk-example-openai-40aa7c"
	t.Setenv("GATEWAY_MASTER_KEY", master)
	t.Setenv("OPENAI_API_KEY", prov)
	src, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	out := string(adapt(t, string(src)))
	for _, secret := range []string{master, prov} {
		if strings.Contains(out, secret) {
			t.Errorf("adapted Caddyfile.example contains a secret:\n%s", out)
		}
	}
	if !strings.Contains(out, `"master_key":"{env.GATEWAY_MASTER_KEY}"`) {
		t.Errorf("the master key is not a runtime placeholder:\n%s", out)
	}
	for _, field := range caddymodule.CredentialLogFields {
		field = strings.ReplaceAll(field, ">", `\u003e`)
		if !strings.Contains(out, `"`+field+`":{"filter":"delete"}`) {
			t.Errorf("the access log does not delete %s:\n%s", field, out)
		}
	}
}

// TestStorageSecretPlaceholdersStayOutOfConfig: the PostgreSQL connection
// string and the Redis URL, which can hold passwords, accept {env.*}
// placeholders like the master key: the gateway runs on both, and neither
// the adapted JSON, autosave.json nor GET /config/ contains them.
func TestStorageSecretPlaceholdersStayOutOfConfig(t *testing.T) {
	clearEnv(t)
	dsn := pgtest.NewDatabase(t)
	redisURL, prefix := redistest.New(t)
	// Markers a leak would show: a password PostgreSQL's trust login
	// ignores, and a client name Redis accepts.
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "pg-secret-4e1b7c")
	dsn = u.String()
	redisURL += "?client_name=redis-secret-90af2d"
	t.Setenv("MG_E2E_PG", dsn)
	t.Setenv("MG_E2E_REDIS", redisURL)
	t.Setenv("MODELGATE_REDIS_PREFIX", prefix)

	autosave := filepath.Join(t.TempDir(), "autosave.json")
	old := caddy.ConfigAutosavePath
	caddy.ConfigAutosavePath = autosave
	t.Cleanup(func() { caddy.ConfigAutosavePath = old })

	block := "master_key " + masterKey + "\nstorage postgres {env.MG_E2E_PG}\nredis {env.MG_E2E_REDIS}" +
		"\nprovider demo {\n type mock\n}"
	g, cfgJSON := startWithGlobals(t, "persist", block)
	if res := request(t, "POST", g.URL+"/admin/auth-keys", `{"name":"stored in postgres"}`, bearer(masterKey)...); res.Status != 201 {
		t.Fatalf("creating a key on the PostgreSQL store: %d %s", res.Status, res.Body)
	}
	cfgRes := request(t, "GET", g.AdminURL+"/config/", "")
	saved, err := os.ReadFile(autosave)
	if err != nil {
		t.Fatalf("autosave.json: %v", err)
	}
	for name, text := range map[string][]byte{"adapt output": cfgJSON, "autosave.json": saved, "GET /config/": cfgRes.Body} {
		for _, secret := range []string{"pg-secret-4e1b7c", "redis-secret-90af2d"} {
			if strings.Contains(string(text), secret) {
				t.Errorf("%s contains a storage secret", name)
			}
		}
		if !strings.Contains(string(text), "{env.MG_E2E_PG}") || !strings.Contains(string(text), "{env.MG_E2E_REDIS}") {
			t.Errorf("%s lacks the placeholders: %s", name, text)
		}
	}
}
