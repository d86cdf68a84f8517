package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
)

// phSite is a site that logs every request to a file with the
// {http.modelgate.*} placeholders appended, serves the modelgate chain,
// and on /boom runs the auth stage and then fails, so that handle_errors
// answers with the placeholders too.
const phSite = `http://127.0.0.1:%d {
	log {
		output file %s
		format json
	}
	log_append mg_user_path {http.modelgate.user_path}
	log_append mg_key_id {http.modelgate.key_id}
	log_append mg_provider {http.modelgate.provider}
	log_append mg_model {http.modelgate.model}
	log_append mg_error_code {http.modelgate.error_code}
	log_append mg_session_id {http.modelgate.session_id}
	@boom path /boom
	route @boom {
		modelgate_auth
		error "boom" 418
	}
	modelgate
	handle_errors {
		respond "status={http.error.status_code} user_path={http.modelgate.user_path} key_id={http.modelgate.key_id}" 418
	}
}
`

// phStart starts a gateway serving phSite and returns it with the access
// log's path.
func phStart(t *testing.T) (*gateway, string) {
	t.Helper()
	g := &gateway{DataDir: t.TempDir()}
	ports := freePorts(t, 2)
	g.URL = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	g.AdminURL = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	logPath := filepath.Join(g.DataDir, "access.log")
	cf := fmt.Sprintf("{\n\tadmin 127.0.0.1:%d\n\tpersist_config off\n\tauto_https off\n\tmodelgate {\n\t\tstorage %s\n%s\n\t}\n}\n",
		ports[1], filepath.Join(g.DataDir, "modelgate.db"), mockBlock("")) + fmt.Sprintf(phSite, ports[0], logPath)
	if err := caddy.Load(adapt(t, cf), true); err != nil {
		t.Fatalf("starting gateway: %v", err)
	}
	t.Cleanup(func() {
		if err := caddy.Stop(); err != nil {
			t.Errorf("stopping gateway: %v", err)
		}
	})
	waitHealthy(t, g.URL)
	return g, logPath
}

// phEntry waits for the access log entry of the request to uri whose
// mg_user_path is userPath and returns it.
func phEntry(t *testing.T, logPath, uri, userPath string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		data, _ := os.ReadFile(logPath)
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var e map[string]any
			if json.Unmarshal(sc.Bytes(), &e) != nil {
				continue
			}
			req, _ := e["request"].(map[string]any)
			if req != nil && req["uri"] == uri && e["mg_user_path"] == userPath {
				return e
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no access log entry for %s as %s in:\n%s", uri, userPath, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPlaceholdersInAccessLog: what each stage learned, the proxy's
// provider and model included, reaches an operator's access log through
// log_append, and handle_errors can read it too.
func TestPlaceholdersInAccessLog(t *testing.T) {
	clearEnv(t)
	g, logPath := phStart(t)
	key := createKey(t, g, `{"name":"ph","user_path":"/team/keyed"}`)

	// A served request: user path from the header, the master key (no id),
	// the provider and model the proxy chose, no error, the session the
	// audit stage derived from the conversation.
	res := request(t, "POST", g.URL+"/v1/chat/completions", mockChat, append(bearer(masterKey), "X-Modelgate-User-Path", "/team/a")...)
	if res.Status != 200 {
		t.Fatalf("chat: %d %s", res.Status, res.Body)
	}
	e := phEntry(t, logPath, "/v1/chat/completions", "/team/a")
	if e["mg_provider"] != "demo" || e["mg_model"] != "mock-chat" || e["mg_key_id"] != "" || e["mg_error_code"] != "" ||
		!strings.HasPrefix(fmt.Sprint(e["mg_session_id"]), "fp_") || e["status"] != 200.0 {
		t.Errorf("served request logged as %v", e)
	}

	// A managed key: its id and bound path; an unknown model's error code.
	res = request(t, "POST", g.URL+"/v1/chat/completions", `{"model":"no-such-model","messages":[]}`, bearer(key.Secret)...)
	if res.Status != 404 {
		t.Fatalf("unknown model: %d %s", res.Status, res.Body)
	}
	e = phEntry(t, logPath, "/v1/chat/completions", "/team/keyed")
	if e["mg_key_id"] != key.ID || e["mg_error_code"] != "model_not_found" || e["mg_provider"] != "" {
		t.Errorf("refused request logged as %v", e)
	}

	// The auth stage's own refusal.
	res = request(t, "GET", g.URL+"/v1/models?who=nobody", "")
	if res.Status != 401 {
		t.Fatalf("no key: %d", res.Status)
	}
	e = phEntry(t, logPath, "/v1/models?who=nobody", "")
	if e["mg_error_code"] != "missing_api_key" {
		t.Errorf("unauthenticated request logged as %v", e)
	}

	// handle_errors sees the placeholders of the stages that ran.
	res = request(t, "GET", g.URL+"/boom", "", bearer(key.Secret)...)
	if want := "status=418 user_path=/team/keyed key_id=" + key.ID; res.Status != 418 || string(res.Body) != want {
		t.Errorf("handle_errors answered %d %q, want %q", res.Status, res.Body, want)
	}
	if strings.Contains(string(mustRead(t, logPath)), key.Secret) || strings.Contains(string(mustRead(t, logPath)), masterKey) {
		t.Error("a credential reached the access log")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
