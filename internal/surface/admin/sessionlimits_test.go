package admin

import (
	"slices"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/platform/config"
)

func TestSessionLimitsCRUD(t *testing.T) {
	g, err := sessions.New(sessions.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sessions.FromConfig([]sessions.Limit{{UserPath: "/cfg", MaxRequests: 9}})
	g.SetConfig(cfg)
	log := &changeLog{}
	h, _ := newTestHandler(t, func(_ *config.Config, o *Options) { o.Sessions, o.Changes = g, log })
	list := listRows(t, do(h, "GET", "/admin/session-limits", ""), "limits")
	if len(list) != 1 || list[0]["source"] != "config" || list[0]["max_requests"] != 9.0 {
		t.Fatalf("list %v", list)
	}
	res := do(h, "PUT", "/admin/session-limits", `{"user_path":"/Team","max_requests":50,"max_cost":1.5,"max_repeats":3,"per_child":true}`)
	if r := res.json(t); res.status != 200 || r["user_path"] != "/team" || r["max_repeats"] != 3.0 || r["per_child"] != true || r["source"] != "manual" {
		t.Fatalf("put %d %v", res.status, r)
	}
	if got := log.since(); !slices.Equal(got, []string{ChangedSessionLimits}) {
		t.Fatalf("put told %q", got)
	}
	if list := listRows(t, do(h, "GET", "/admin/session-limits", ""), "limits"); len(list) != 2 || list[1]["user_path"] != "/team" {
		t.Fatalf("list %v", list)
	}
	if _, rej := g.Admit("/team/a", "s"); rej != nil {
		t.Fatalf("first request refused: %v", rej)
	}
	do(h, "PUT", "/admin/session-limits", `{"user_path":"/x"}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/session-limits", `{"user_path":"/x","max_repeats":1}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/session-limits", `{"user_path":"x//","max_requests":1}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/session-limits", `{"user_path":"/x","max_cost":-1}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	do(h, "PUT", "/admin/session-limits", `{"user_path":"/x","max_requests":"many"}`).expectErr(t, 400, "invalid_request_error", "invalid_type")
	do(h, "PUT", "/admin/session-limits", `{"user_path":"/x","max_requests":1,"source":"config"}`).expectErr(t, 400, "invalid_request_error", "unknown_field")
	do(h, "DELETE", "/admin/session-limits", `{"user_path":"/cfg"}`).expectErr(t, 404, "not_found_error", "session_limit_not_found")
	do(h, "DELETE", "/admin/session-limits", `{}`).expectErr(t, 400, "invalid_request_error", "invalid_value")
	if res := do(h, "DELETE", "/admin/session-limits", `{"user_path":"/team"}`); res.status != 204 {
		t.Fatalf("delete %d %s", res.status, res.body)
	}
	if got := log.since(); !slices.Equal(got, []string{ChangedSessionLimits}) {
		t.Fatalf("failed writes and the delete told %q", got)
	}
	if list := listRows(t, do(h, "GET", "/admin/session-limits", ""), "limits"); len(list) != 1 {
		t.Fatalf("after delete %v", list)
	}
}

func TestSessionLimitsUnavailable(t *testing.T) {
	h, _ := newTestHandler(t, nil)
	do(h, "GET", "/admin/session-limits", "").expectErr(t, 503, "provider_error", "session_limits_unavailable")
}
