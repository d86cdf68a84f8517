package admin

import (
	"fmt"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/modelgate/modelgate/internal/platform/config"
)

// TestNoSecretInLogs: key management is logged by key id, never with the
// key, its hash or the master key.
func TestNoSecretInLogs(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.Logger = zap.New(core) })
	res := do(h, "POST", "/admin/auth-keys", `{"name":"logged","user_path":"/l"}`)
	m := res.json(t)
	secret, id := m["key"].(string), m["id"].(string)
	do(h, "PATCH", "/admin/auth-keys/"+id, `{"dashboard_access":true}`)
	do(h, "POST", "/admin/auth-keys/"+id+"/deactivate", "")
	do(h, "DELETE", "/admin/auth-keys/"+id, "")
	if logs.Len() < 4 {
		t.Fatalf("%d log entries, want one per change", logs.Len())
	}
	for _, e := range logs.All() {
		line := e.Message + " " + fmt.Sprint(e.ContextMap())
		for _, s := range []string{secret, secret[12:], testMaster} {
			if strings.Contains(line, s) {
				t.Fatalf("log line carries a secret: %s", line)
			}
		}
		if e.ContextMap()["key_id"] != id {
			t.Errorf("log line without the key id: %s", line)
		}
	}
}
