package proxy

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/catalog"
)

// modelsPath is the path of the model listing; a model is retrieved at
// modelsPath + "/" + its id.
const modelsPath = "/v1/models"

type modelObject struct {
	ID       string            `json:"id"`
	Object   string            `json:"object"`
	Created  int64             `json:"created"`
	OwnedBy  string            `json:"owned_by"`
	Metadata *catalog.Metadata `json:"metadata,omitempty"`

	upstreamID string // the id the provider lists it under
}

// models answers the model routes: GET /v1/models lists every model,
// GET /v1/models/{id} retrieves one.
func (s *Service) models(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if len(path) > 1 {
		path = strings.TrimSuffix(path, "/")
	}
	if id, ok := strings.CutPrefix(path, modelsPath+"/"); ok {
		s.getModel(w, r, id)
		return
	}
	s.listModels(w)
}

// modelObjects is every registered provider's models, each under the
// selector that routes back to it (see Registry.Selector), the first
// provider winning a selector two would share. owned_by is the provider
// instance; metadata comes from the embedded catalog and is absent for
// models it does not know.
func (s *Service) modelObjects() []modelObject {
	listed := s.Registry.Models()
	out := make([]modelObject, 0, len(listed))
	seen := make(map[string]bool, len(listed))
	for _, lm := range listed {
		id := s.Registry.Selector(lm.Provider, lm.Model.ID)
		if seen[id] {
			continue
		}
		seen[id] = true
		obj := modelObject{ID: id, Object: "model", Created: lm.Model.Created, OwnedBy: lm.Provider.Name(), upstreamID: lm.Model.ID}
		if md, ok := catalog.Lookup(lm.Provider.Type(), lm.Model.ID); ok {
			obj.Metadata = &md
		}
		out = append(out, obj)
	}
	return out
}

// listModels answers GET /v1/models: {"object":"list","data":[...]} with
// every model object.
func (s *Service) listModels(w http.ResponseWriter) {
	out := struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{Object: "list", Data: s.modelObjects()}
	writeJSON(w, out)
}

// getModel answers GET /v1/models/{id} with the model object the listing
// has under id. The id may contain slashes. An id of the form
// <provider>/<model> also finds a model listed without the prefix (the
// object keeps its listed id); any other id gets 404 model_not_found.
func (s *Service) getModel(w http.ResponseWriter, r *http.Request, id string) {
	objs := s.modelObjects()
	for i := range objs {
		if objs[i].ID == id {
			writeJSON(w, objs[i])
			return
		}
	}
	if provider, model, ok := strings.Cut(id, "/"); ok {
		for i := range objs {
			if objs[i].OwnedBy == provider && objs[i].upstreamID == model {
				writeJSON(w, objs[i])
				return
			}
		}
	}
	apierr.WriteFor(w, r, apierr.NotFound("the model "+id+" does not exist or no provider lists it").
		WithParam("model").WithCode("model_not_found"))
}

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
