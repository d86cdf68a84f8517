package admin

import (
	"net/http"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// auditReads returns the audit-log reads: over no storage (empty answers,
// zero-filled statistics) when audit logging is off or nothing records.
func (h *Handler) auditReads() *audit.Queries {
	if h.opts.Audit == nil || !h.opts.Config.Logging.On() {
		return audit.NewQueries(nil, h.opts.Now)
	}
	return h.opts.Audit
}

// auditLog answers GET /admin/audit/log: one page of entries matching the
// filters, newest first, without bodies, with the total match count.
func (h *Handler) auditLog(w http.ResponseWriter, r *http.Request, _ params) {
	q, err := audit.ParseListQuery(r.URL.Query(), h.opts.Now())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	out, err := h.auditReads().List(q)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	h.nameKeys(out.Entries...)
	writeJSON(w, http.StatusOK, out)
}

// auditEntry answers GET /admin/audit/log/{id}: one entry with its bodies,
// or 404 not_found_error.
func (h *Handler) auditEntry(w http.ResponseWriter, _ *http.Request, p params) {
	e, err := h.auditReads().Get(p["id"])
	if err != nil {
		h.readFailed(w, err)
		return
	}
	h.nameKeys(e)
	writeJSON(w, http.StatusOK, e)
}

// auditStats answers GET /admin/audit/stats: request counts per hour (a
// window of up to three days) or day, zero-filled up to now, their summary
// and per-provider latency aligned with the buckets.
func (h *Handler) auditStats(w http.ResponseWriter, r *http.Request, _ params) {
	win, err := audit.ParseWindow(r.URL.Query(), h.opts.Now())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	out, err := h.auditReads().Stats(win)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// auditConversation answers GET /admin/audit/conversation: the entries of
// the anchor's session under its user path, in time order, one page at a
// time (limit, max_bytes; before reads earlier turns). A missing log_id, a
// bad number or a before outside the session is 400, an unknown id 404. With audit logging off
// there is no record to look the anchor up in: the answer is an empty
// thread, not an error.
func (h *Handler) auditConversation(w http.ResponseWriter, r *http.Request, _ params) {
	q, err := audit.ParseConversationQuery(r.URL.Query())
	if err != nil {
		h.readFailed(w, err)
		return
	}
	if h.opts.Audit == nil || !h.opts.Config.Logging.On() {
		writeJSON(w, http.StatusOK, audit.Conversation{AnchorID: q.AnchorID, Entries: []*audit.Entry{}})
		return
	}
	out, err := h.auditReads().ConversationPage(q)
	if err != nil {
		h.readFailed(w, err)
		return
	}
	h.nameKeys(out.Entries...)
	writeJSON(w, http.StatusOK, out)
}

// nameKeys fills in the key name of entries made with a managed key that
// still exists, looking each key up once.
func (h *Handler) nameKeys(entries ...*audit.Entry) {
	if h.opts.Keys == nil {
		return
	}
	names := map[string]string{}
	for _, e := range entries {
		if e == nil || e.AuthKeyID == "" {
			continue
		}
		name, ok := names[e.AuthKeyID]
		if !ok {
			if k, err := h.opts.Keys.Get(e.AuthKeyID); err == nil {
				name = k.Name
			}
			names[e.AuthKeyID] = name
		}
		e.AuthKeyName = name
	}
}
