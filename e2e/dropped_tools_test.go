package e2e

import (
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/proxy"
)

// TestHostedToolDroppedOntoChatProvider: a Responses request carrying a
// hosted tool the target cannot run (web_search, as Codex sends by
// default) is served without it: the answer names the dropped tool in a
// header and the audit entry records the change as a request revision.
func TestHostedToolDroppedOntoChatProvider(t *testing.T) {
	g := startGateway(t, "master_key "+masterKey+"\nprovider demo {\n type mock\n}")
	res := request(t, "POST", g.URL+"/v1/responses",
		`{"model":"mock-chat","input":"hi","tools":[{"type":"web_search"},{"type":"function","name":"f","parameters":{"type":"object"}}]}`,
		append(bearer(masterKey), "X-Request-Id", "req-dropped")...)
	if res.Status != 200 || res.Header.Get(proxy.DroppedToolsHeader) != "web_search" {
		t.Fatalf("%d %s=%q %s", res.Status, proxy.DroppedToolsHeader, res.Header.Get(proxy.DroppedToolsHeader), res.Body)
	}
	entries, _ := auditRecords(t)
	e := entries["req-dropped"]
	if len(e) != 1 || len(e[0].Data.RequestRevisions) != 1 || e[0].Data.RequestRevisions[0].Rewriter != "drop_unsupported_tools" ||
		string(e[0].Data.RequestRevisions[0].Detail) != `{"dropped":["web_search"]}` {
		t.Fatalf("entry revisions %+v", e)
	}
	forced := request(t, "POST", g.URL+"/v1/responses",
		`{"model":"mock-chat","input":"hi","tools":[{"type":"web_search"}],"tool_choice":{"type":"web_search"}}`, bearer(masterKey)...)
	if forced.Status != 400 {
		t.Fatalf("forced hosted tool: %d %s", forced.Status, forced.Body)
	}
}
