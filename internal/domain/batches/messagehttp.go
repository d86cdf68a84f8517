package batches

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/jsonbody"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// messageBatchesPath is the root of the message batches routes.
const messageBatchesPath = "/v1/messages/batches"

// messageCreateRequest is the body of POST /v1/messages/batches.
type messageCreateRequest struct {
	Requests []MessageRequest `json:"requests"`
}

// serveMessages answers the message batches routes in Anthropic's shapes
// (their errors are in Anthropic's envelope, apierr.WriteFor): POST and
// GET /v1/messages/batches, GET and DELETE /v1/messages/batches/{id},
// GET /v1/messages/batches/{id}/results and POST
// /v1/messages/batches/{id}/cancel. rest is the path without its
// trailing slash.
func (h *Handler) serveMessages(w http.ResponseWriter, r *http.Request, c Caller, info *reqinfo.Info, rest string) {
	if rest == messageBatchesPath {
		if r.Method == http.MethodPost {
			h.createMessages(w, r, c, info)
		} else {
			h.listMessages(w, r, c)
		}
		return
	}
	id := strings.TrimPrefix(rest, messageBatchesPath+"/")
	id, results := strings.CutSuffix(id, "/results")
	id, cancel := strings.CutSuffix(id, "/cancel")
	what := "message batch " + id
	switch {
	case results:
		out, err := h.Service.MessageResults(c, id)
		if err != nil {
			writeErr(w, r, err, what)
			return
		}
		w.Header().Set("Content-Type", "application/x-jsonl")
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		_, _ = w.Write(out)
	case cancel:
		b, err := h.Service.CancelMessages(c, id)
		if err != nil {
			writeErr(w, r, err, what)
			return
		}
		writeJSON(w, viewMessageBatch(b, resultsURL(r, b.ID)))
	case r.Method == http.MethodDelete:
		b, err := h.Service.DeleteMessages(c, id)
		if err != nil {
			writeErr(w, r, err, what)
			return
		}
		writeJSON(w, messageDeletedView{ID: b.ID, Type: "message_batch_deleted"})
	default:
		b, err := h.Service.MessageBatch(c, id)
		if err != nil {
			writeErr(w, r, err, what)
			return
		}
		writeJSON(w, viewMessageBatch(b, resultsURL(r, b.ID)))
	}
}

// createMessages answers POST /v1/messages/batches.
func (h *Handler) createMessages(w http.ResponseWriter, r *http.Request, c Caller, info *reqinfo.Info) {
	if err := apierr.CheckJSONMediaType(r.Header); err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	// The body holds every request of the batch: it is bounded like an
	// upload, and members this gateway does not read pass.
	var req messageCreateRequest
	if e := jsonbody.Decode(w, r, &req, jsonbody.Options{MaxBytes: h.MaxFileBytes, AllowUnknown: true}); e != nil {
		apierr.WriteFor(w, r, e)
		return
	}
	b, model, err := h.Service.CreateMessages(c, req.Requests)
	if err != nil {
		writeErr(w, r, err, "")
		return
	}
	if info != nil {
		info.RequestedModel = model
	}
	writeJSON(w, viewMessageBatch(b, resultsURL(r, b.ID)))
}

// listMessages answers GET /v1/messages/batches: the caller's message
// batches, newest first, paged by limit (1 to 1,000, default 20) and
// either before_id or after_id.
func (h *Handler) listMessages(w http.ResponseWriter, r *http.Request, c Caller) {
	q := r.URL.Query()
	limit, ok := queryLimit(w, r, 20, 1000)
	if !ok {
		return
	}
	before, after := q.Get("before_id"), q.Get("after_id")
	if before != "" && after != "" {
		apierr.WriteFor(w, r, apierr.InvalidRequest("give before_id or after_id, not both").WithParam("before_id").WithCode(apierr.CodeInvalidValue))
		return
	}
	list, more, err := h.Service.MessageBatches(c, before, after, limit)
	if err != nil {
		writeErr(w, r, err, "")
		return
	}
	page := messageListView{Data: make([]messageBatchView, len(list)), HasMore: more}
	for i, b := range list {
		page.Data[i] = viewMessageBatch(b, resultsURL(r, b.ID))
	}
	if len(list) > 0 {
		first, last := list[0].ID, list[len(list)-1].ID
		page.FirstID, page.LastID = &first, &last
	}
	writeJSON(w, page)
}

// resultsURL is the absolute URL of the results of message batch id, on
// the host and scheme the request came in on.
func resultsURL(r *http.Request, id string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + messageBatchesPath + "/" + id + "/results"
}
