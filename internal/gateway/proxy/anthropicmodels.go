package proxy

import (
	"net/http"
	"strconv"
	"time"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// anthropicModel is a model object in the shape of Anthropic's Models
// API, which the Anthropic SDKs read.
type anthropicModel struct {
	Type        string `json:"type"`
	ID          string `json:"id"`
	DisplayName string `json:"display_name"`
	CreatedAt   string `json:"created_at"`
}

// anthropicClient reports whether r comes from an Anthropic client: it
// names the Anthropic API version it speaks, as the Anthropic SDKs
// always do.
func anthropicClient(r *http.Request) bool { return r.Header.Get("anthropic-version") != "" }

// asAnthropic is o in Anthropic's model shape: the catalog's display name
// (else the id), and its creation time (the Unix epoch when unknown).
func asAnthropic(o modelObject) anthropicModel {
	m := anthropicModel{Type: "model", ID: o.ID, DisplayName: o.ID,
		CreatedAt: time.Unix(o.Created, 0).UTC().Format(time.RFC3339)}
	if o.Metadata != nil && o.Metadata.DisplayName != "" {
		m.DisplayName = o.Metadata.DisplayName
	}
	return m
}

// listAnthropicModels answers GET /v1/models for an Anthropic client:
// {"data":[...],"has_more":…,"first_id":…,"last_id":…}, one page of the
// listing in its order: limit (1 to 1000, default 20) models after the
// model after_id, or before before_id.
func (s *Service) listAnthropicModels(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1000 {
			writeAnthropicError(w, r, apierr.InvalidRequest("limit: must be a whole number from 1 to 1000").WithParam("limit"))
			return
		}
		limit = n
	}
	objs := s.modelObjects(r)
	start, end := 0, len(objs)
	if id := q.Get("after_id"); id != "" {
		start = indexOfModel(objs, id) + 1
	}
	if id := q.Get("before_id"); id != "" {
		end = max(indexOfModel(objs, id), 0)
		start = max(start, end-limit)
	}
	start = min(start, end)
	page := objs[start:min(start+limit, end)]
	out := struct {
		Data    []anthropicModel `json:"data"`
		HasMore bool             `json:"has_more"`
		FirstID *string          `json:"first_id"`
		LastID  *string          `json:"last_id"`
	}{Data: make([]anthropicModel, len(page))}
	for i, o := range page {
		out.Data[i] = asAnthropic(o)
	}
	if len(page) > 0 {
		out.FirstID, out.LastID = &page[0].ID, &page[len(page)-1].ID
		if q.Get("before_id") != "" {
			out.HasMore = start > 0
		} else {
			out.HasMore = start+len(page) < end
		}
	}
	writeJSON(w, out)
}

// indexOfModel is the position of the model listed as id in objs, -1 when
// none is (a page after an unknown id then starts at the beginning).
func indexOfModel(objs []modelObject, id string) int {
	for i := range objs {
		if objs[i].ID == id {
			return i
		}
	}
	return -1
}

// writeAnthropicError answers an Anthropic client with e in Anthropic's
// error envelope, recorded on the request as every gateway error is.
func writeAnthropicError(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
	if info := reqinfo.From(r.Context()); info != nil {
		apierr.Record(info, e)
	}
	apierr.WriteAnthropic(w, e)
}
