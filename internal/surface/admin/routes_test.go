package admin

import (
	"testing"

	"github.com/modelgate/modelgate/internal/request/routes"
)

// adminRoutes are the served admin API routes of the route table.
func adminRoutes() []routes.Route {
	var out []routes.Route
	for _, r := range routes.All() {
		if r.Shape == routes.ShapeAdmin && r.Documented() {
			out = append(out, r)
		}
	}
	return out
}

// TestHandlersMatchTable: every served admin API route of the route table
// has a handler, and every handler is attached to one.
func TestHandlersMatchTable(t *testing.T) {
	declared := map[string]bool{}
	for _, r := range adminRoutes() {
		declared[r.ID] = true
		if handlers[r.ID] == nil {
			t.Errorf("%s %s (%s) has no handler", r.Method, r.Path, r.ID)
		}
		if r.Credential != routes.CredentialAdmin {
			t.Errorf("%s: credential %s", r.ID, r.Credential)
		}
	}
	for id := range handlers {
		if !declared[id] {
			t.Errorf("handler %s names no served admin route", id)
		}
	}
	if len(declared) < 16 {
		t.Errorf("only %d admin routes", len(declared))
	}
}

// TestDocumentedDaysBound: the documented bound of the days parameter is
// the one the usage routes enforce.
func TestDocumentedDaysBound(t *testing.T) {
	n := 0
	for _, r := range adminRoutes() {
		for _, q := range r.Doc.Query {
			if q.Name == "days" {
				n++
				if q.Max != MaxUsageDays || q.Min != 1 {
					t.Errorf("%s: days documented %d..%d, enforced 1..%d", r.ID, q.Min, q.Max, MaxUsageDays)
				}
			}
		}
	}
	if n != 6 { // the four usage routes, the audit log and the audit stats
		t.Errorf("days documented on %d routes", n)
	}
}

// TestOperationsOfAnyMethodRoute: a route taking any method on a path
// ending in /* is documented once per method, with a {path} parameter and
// distinct operation ids.
func TestOperationsOfAnyMethodRoute(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	rt, ok := routes.Lookup("GET", "/p/openai/v1/models")
	if !ok || rt.Method != routes.Any {
		t.Fatalf("passthrough route %v", rt)
	}
	ops := operationsOf(rt)
	if len(ops) != len(anyMethods) {
		t.Fatalf("%d operations", len(ops))
	}
	ids := map[string]bool{}
	for _, op := range ops {
		if op.Path != "/p/{provider}/{path}" || op.Public {
			t.Errorf("%+v", op)
		}
		d := h.operation(op)
		id := d["operationId"].(string)
		if ids[id] {
			t.Errorf("operation id %s repeated", id)
		}
		ids[id] = true
		if ps := d["parameters"].([]map[string]any); len(ps) < 2 || ps[0]["name"] != "provider" || ps[1]["name"] != "path" {
			t.Errorf("%s: parameters %v", id, ps)
		}
	}
	if !ids["passthroughGet"] || !ids["passthroughDelete"] {
		t.Errorf("ids %v", ids)
	}
}
