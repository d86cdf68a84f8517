package batches

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/jsonbody"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Handler serves the files and batches routes in OpenAI's shapes:
// POST and GET /v1/files, GET and DELETE /v1/files/{id},
// GET /v1/files/{id}/content,
// POST and GET /v1/batches, GET /v1/batches/{id} and
// POST /v1/batches/{id}/cancel; and the message batches routes under
// /v1/messages/batches in Anthropic's (serveMessages). Callers see only
// their own user path's files and batches; admins see all. The route
// table has already checked the method.
type Handler struct {
	// Service is the batches domain.
	Service *Service
	// MaxFileBytes caps an upload's whole request body; larger ones get
	// 413.
	MaxFileBytes int64
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c := Caller{UserPath: "/"}
	info := reqinfo.From(r.Context())
	if info != nil {
		if info.UserPath != "" {
			c.UserPath = info.UserPath
		}
		c.Admin = info.AuthMethod == reqinfo.AuthMasterKey
	}
	rest := strings.TrimSuffix(r.URL.Path, "/")
	switch {
	case strings.HasPrefix(rest, messageBatchesPath):
		h.serveMessages(w, r, c, info, rest)
	case rest == "/v1/files" && r.Method == http.MethodGet:
		h.listFiles(w, r, c)
	case rest == "/v1/files":
		h.upload(w, r, c)
	case strings.HasPrefix(rest, "/v1/files/") && r.Method == http.MethodDelete:
		h.deleteFile(w, r, c, strings.TrimPrefix(rest, "/v1/files/"))
	case strings.HasPrefix(rest, "/v1/files/"):
		id, content := strings.CutSuffix(strings.TrimPrefix(rest, "/v1/files/"), "/content")
		h.file(w, r, c, id, content)
	case rest == "/v1/batches" && r.Method == http.MethodPost:
		h.create(w, r, c, info)
	case rest == "/v1/batches":
		h.list(w, r, c)
	case strings.HasPrefix(rest, "/v1/batches/"):
		id, cancel := strings.CutSuffix(strings.TrimPrefix(rest, "/v1/batches/"), "/cancel")
		var b *Batch
		var err error
		if cancel {
			b, err = h.Service.Cancel(c, id)
		} else {
			b, err = h.Service.Batch(c, id)
		}
		if err != nil {
			writeErr(w, r, err, "batch "+id)
			return
		}
		writeJSON(w, viewBatch(b))
	default:
		apierr.WriteFor(w, r, apierr.UnknownRoute("unknown route: "+r.Method+" "+r.URL.Path))
	}
}

// upload stores a multipart upload: a "purpose" field and a "file" part.
func (h *Handler) upload(w http.ResponseWriter, r *http.Request, c Caller) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		apierr.WriteFor(w, r, apierr.New(http.StatusUnsupportedMediaType, apierr.TypeInvalidRequest,
			"POST /v1/files takes multipart/form-data").WithCode("unsupported_media_type"))
		return
	}
	max := h.MaxFileBytes
	if max <= 0 {
		max = 100 << 20
	}
	r.Body = http.MaxBytesReader(w, r.Body, max)
	mr, err := r.MultipartReader()
	if err != nil {
		apierr.WriteFor(w, r, apierr.MultipartError(err))
		return
	}
	var purpose, filename string
	var content []byte
	haveFile := false
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err == nil {
			var b []byte
			b, err = io.ReadAll(p)
			switch p.FormName() {
			case "purpose":
				purpose = string(b)
			case "file":
				filename, content, haveFile = p.FileName(), b, true
			}
		}
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				apierr.WriteFor(w, r, apierr.New(http.StatusRequestEntityTooLarge, apierr.TypeInvalidRequest,
					"the upload exceeds "+strconv.FormatInt(max, 10)+" bytes").WithCode("request_too_large"))
				return
			}
			apierr.WriteFor(w, r, apierr.MultipartError(err))
			return
		}
	}
	if !haveFile {
		apierr.WriteFor(w, r, apierr.InvalidRequest("file is required").WithParam("file").WithCode(apierr.CodeMissingParameter))
		return
	}
	f, err := h.Service.Upload(c, filename, purpose, content)
	if err != nil {
		writeErr(w, r, err, "")
		return
	}
	writeJSON(w, viewFile(f))
}

// file answers GET /v1/files/{id} and its /content.
func (h *Handler) file(w http.ResponseWriter, r *http.Request, c Caller, id string, content bool) {
	if !content {
		f, err := h.Service.File(c, id)
		if err != nil {
			writeErr(w, r, err, "file "+id)
			return
		}
		writeJSON(w, viewFile(f))
		return
	}
	_, b, err := h.Service.FileContent(c, id)
	if err != nil {
		writeErr(w, r, err, "file "+id)
		return
	}
	w.Header().Set("Content-Type", "application/jsonl")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// listFiles answers GET /v1/files: the caller's files in OpenAI's list
// shape, filtered by purpose, paged by limit (1 to 10,000, default
// 10,000) and after, in order (desc, the default, or asc) of creation.
func (h *Handler) listFiles(w http.ResponseWriter, r *http.Request, c Caller) {
	q := r.URL.Query()
	limit, ok := queryLimit(w, r, 10000, 10000)
	if !ok {
		return
	}
	order := q.Get("order")
	if order != "" && order != "asc" && order != "desc" {
		apierr.WriteFor(w, r, apierr.InvalidRequest("order must be asc or desc").WithParam("order").WithCode(apierr.CodeInvalidValue))
		return
	}
	list, err := h.Service.Files(c, q.Get("purpose"), q.Get("after"), limit, order == "asc")
	if err != nil {
		writeErr(w, r, err, "")
		return
	}
	page := fileListView{Object: "list", Data: make([]fileView, len(list.Files)), HasMore: list.More}
	for i, f := range list.Files {
		page.Data[i] = viewFile(f)
	}
	if n := len(list.Files); n > 0 {
		first, last := list.Files[0].ID, list.Files[n-1].ID
		page.FirstID, page.LastID = &first, &last
	}
	writeJSON(w, page)
}

// deleteFile answers DELETE /v1/files/{id}.
func (h *Handler) deleteFile(w http.ResponseWriter, r *http.Request, c Caller, id string) {
	f, err := h.Service.DeleteFile(c, id)
	if err != nil {
		writeErr(w, r, err, "file "+id)
		return
	}
	writeJSON(w, fileDeletedView{ID: f.ID, Object: "file", Deleted: true})
}

// create answers POST /v1/batches.
func (h *Handler) create(w http.ResponseWriter, r *http.Request, c Caller, info *reqinfo.Info) {
	if err := apierr.CheckJSONMediaType(r.Header); err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	// Members this gateway does not read (newer API fields) pass.
	var req CreateRequest
	if e := jsonbody.Decode(w, r, &req, jsonbody.Options{AllowUnknown: true}); e != nil {
		apierr.WriteFor(w, r, e)
		return
	}
	b, model, err := h.Service.Create(c, req)
	if err != nil {
		writeErr(w, r, err, "")
		return
	}
	if info != nil {
		info.RequestedModel = model
	}
	writeJSON(w, viewBatch(b))
}

// list answers GET /v1/batches.
func (h *Handler) list(w http.ResponseWriter, r *http.Request, c Caller) {
	q := r.URL.Query()
	limit, ok := queryLimit(w, r, 20, 100)
	if !ok {
		return
	}
	list, more, err := h.Service.List(c, q.Get("after"), limit)
	if err != nil {
		writeErr(w, r, err, "")
		return
	}
	page := listView{Object: "list", Data: make([]batchView, len(list)), HasMore: more}
	for i, b := range list {
		page.Data[i] = viewBatch(b)
	}
	if len(list) > 0 {
		first, last := list[0].ID, list[len(list)-1].ID
		page.FirstID, page.LastID = &first, &last
	}
	writeJSON(w, page)
}

// queryLimit reads the request's limit query parameter, def when it is
// absent; a limit that is not an integer from 1 to max is answered 400
// (ok false).
func queryLimit(w http.ResponseWriter, r *http.Request, def, max int) (limit int, ok bool) {
	s := r.URL.Query().Get("limit")
	if s == "" {
		return def, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > max {
		apierr.WriteFor(w, r, apierr.InvalidRequest("limit must be an integer from 1 to "+strconv.Itoa(max)).
			WithParam("limit").WithCode(apierr.CodeInvalidValue))
		return 0, false
	}
	return n, true
}

// writeErr answers err: 404 for ErrNotFound (naming what), 400 for a
// refused request, 409 for a cancel of a finished batch or what only an
// ended message batch allows, 500 otherwise.
func writeErr(w http.ResponseWriter, r *http.Request, err error, what string) {
	var inv *InvalidError
	var up *UpstreamError
	var fin *FinishedError
	var inUse *FileInUseError
	var notEnded *NotEndedError
	switch {
	case errors.As(err, &notEnded):
		apierr.WriteFor(w, r, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest, err.Error()).
			WithCode("batch_not_ended"))
	case errors.As(err, &inUse):
		apierr.WriteFor(w, r, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest, err.Error()).
			WithCode("file_in_use"))
	case errors.As(err, &fin):
		apierr.WriteFor(w, r, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest, err.Error()).
			WithCode("batch_not_cancellable"))
	case errors.As(err, &up):
		apierr.WriteFor(w, r, upstreamErr(up))
	case errors.Is(err, ErrNotFound):
		apierr.WriteFor(w, r, apierr.New(http.StatusNotFound, apierr.TypeNotFound, "no "+what).WithCode("not_found"))
	case errors.As(err, &inv):
		e := apierr.InvalidRequest(inv.Message).WithCode(cmp.Or(inv.Code, apierr.CodeInvalidValue))
		if inv.Param != "" {
			e = e.WithParam(inv.Param)
		}
		apierr.WriteFor(w, r, e)
	default:
		apierr.WriteFor(w, r, apierr.New(http.StatusInternalServerError, apierr.TypeProvider, "storage failure").WithCode("storage_error"))
	}
}

// upstreamErr is the answer to a provider's refusal or failure while it
// was asked to run or cancel a batch: the provider's own status, type by
// status and code when it answered with an error (so that a refusal the
// client should not retry is not reported as a gateway failure, which
// SDKs retry); 504 upstream_timeout or 502 upstream_unreachable, with a
// fixed message, when it could not be reached in time; 502
// upstream_redirect when it answered with a redirect (never followed); 502
// otherwise. The
// provider's words have had its key removed.
func upstreamErr(up *UpstreamError) *apierr.Error {
	var ans UpstreamAnswer
	if errors.As(up.Err, &ans) && ans.UpstreamStatus() >= 300 && ans.UpstreamStatus() < 400 {
		return apierr.UpstreamRedirect(up.Provider, ans.UpstreamStatus())
	}
	if errors.As(up.Err, &ans) && ans.UpstreamStatus() >= 400 {
		status := ans.UpstreamStatus()
		e := apierr.New(status, apierr.TypeForStatus(status), up.Error()).WithProvider(up.Provider)
		if c := ans.UpstreamCode(); c != "" {
			e.WithCode(c)
		}
		return e.WithUpstreamRetryAfter(ans.UpstreamRetryAfter())
	}
	var ue *url.Error
	switch {
	case errors.Is(up.Err, context.DeadlineExceeded) || (errors.As(up.Err, &ue) && ue.Timeout()):
		return apierr.UpstreamTimeout(up.Provider)
	case ue != nil:
		return apierr.UpstreamUnreachable(up.Provider)
	}
	return apierr.ProviderError(http.StatusBadGateway, up.Provider, up.Error())
}

// writeJSON answers v as JSON with status 200.
func writeJSON(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encoding failure", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
