package proxy

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
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
	if anthropicClient(r) {
		s.listAnthropicModels(w, r)
		return
	}
	s.listModels(w, r)
}

// modelObjects is every registered provider's models, each under the
// selector that routes back to it (see Registry.Selector), the first
// provider winning a selector two would share. owned_by is the provider
// instance; metadata comes from the embedded catalog and is absent for
// models it does not know.
//
// For a request that passed the virtual-model stage the list starts with
// the virtual models the caller may use and leaves out the provider
// models the access policies keep from the caller.
func (s *Service) modelObjects(r *http.Request) []modelObject {
	listed := s.Registry.Models()
	out := make([]modelObject, 0, len(listed))
	seen := make(map[string]bool, len(listed))
	var vm *vmodels.Service
	userPath := ""
	if info := reqinfo.From(r.Context()); info != nil && info.VirtualModels {
		vm, userPath = s.VirtualModels, info.UserPath
	}
	for _, row := range vm.Aliases(userPath) {
		seen[row.Source] = true
		out = append(out, aliasObject(row))
	}
	for _, lm := range listed {
		id := s.Registry.Selector(lm.Provider, lm.Model.ID)
		if seen[id] || (vm != nil && !vm.Allowed(userPath, lm.Provider.Name(), lm.Model.ID)) {
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
func (s *Service) listModels(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{Object: "list", Data: s.modelObjects(r)}
	writeJSON(w, out)
}

// getModel answers GET /v1/models/{id} with the model object the listing
// has under id. The id may contain slashes. An id of the form
// <provider>/<model> also finds a model listed without the prefix (the
// object keeps its listed id); any other id gets 404 model_not_found.
//
// An Anthropic client (anthropicClient) gets the object, or the 404, in
// Anthropic's shape.
func (s *Service) getModel(w http.ResponseWriter, r *http.Request, id string) {
	objs := s.modelObjects(r)
	found := indexOfModel(objs, id)
	if provider, model, ok := strings.Cut(id, "/"); ok && found < 0 {
		for i := range objs {
			if objs[i].OwnedBy == provider && objs[i].upstreamID == model {
				found = i
				break
			}
		}
	}
	switch {
	case found >= 0 && anthropicClient(r):
		writeJSON(w, asAnthropic(objs[found]))
	case found >= 0:
		writeJSON(w, objs[found])
	default:
		e := apierr.NotFound("the model " + id + " does not exist or no provider lists it").
			WithParam("model").WithCode("model_not_found")
		if anthropicClient(r) {
			writeAnthropicError(w, r, e)
			return
		}
		apierr.WriteFor(w, r, e)
	}
}

// aliasObject is the model object of a virtual model: listed under its
// source, owned by its provider_name (else "modelgate"), with the catalog
// metadata of its first target.
func aliasObject(row vmodels.Row) modelObject {
	obj := modelObject{ID: row.Source, Object: "model", OwnedBy: row.ProviderName, upstreamID: row.Source}
	if obj.OwnedBy == "" {
		obj.OwnedBy = "modelgate"
	}
	if row.CreatedAt != nil {
		obj.Created = row.CreatedAt.Unix()
	}
	return obj
}

// Inventory returns the model inventory of GET /admin/models: every
// provider's models (at most max rows) of category ("" or "all": every
// one), each with the access the policies give it. ready is false while
// the first model listings are still arriving.
func (s *Service) Inventory(category string, max int) (rows []vmodels.InventoryEntry, ready bool) {
	select {
	case <-s.Registry.Ready():
	default:
		return []vmodels.InventoryEntry{}, false
	}
	rows = []vmodels.InventoryEntry{}
	for _, lm := range s.Registry.Models() {
		if len(rows) >= max {
			break
		}
		obj := modelObject{ID: s.Registry.Selector(lm.Provider, lm.Model.ID), Object: "model", Created: lm.Model.Created, OwnedBy: lm.Provider.Name()}
		md, ok := catalog.Lookup(lm.Provider.Type(), lm.Model.ID)
		if ok {
			obj.Metadata = &md
		}
		if !catalog.MatchesCategory(md, category) {
			continue
		}
		rows = append(rows, vmodels.InventoryEntry{
			ProviderName: lm.Provider.Name(), ProviderType: lm.Provider.Type(),
			Selector: lm.Provider.Name() + "/" + lm.Model.ID, Model: obj,
			Access: s.VirtualModels.AccessOf(lm.Provider.Name(), lm.Model.ID),
		})
	}
	return rows, true
}

// writeJSON answers 200 with v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	body, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
