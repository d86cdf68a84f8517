package proxy

import (
	"encoding/json"
	"net/http"

	"github.com/modelgate/modelgate/catalog"
)

type modelObject struct {
	ID       string            `json:"id"`
	Object   string            `json:"object"`
	Created  int64             `json:"created"`
	OwnedBy  string            `json:"owned_by"`
	Metadata *catalog.Metadata `json:"metadata,omitempty"`
}

// listModels answers GET /v1/models with every registered provider's
// models, each under the selector that routes back to it (see
// Registry.Selector). owned_by is the provider instance; metadata comes
// from the embedded catalog and is absent for models it does not know.
func (s *Service) listModels(w http.ResponseWriter, _ *http.Request) {
	listed := s.Registry.Models()
	out := struct {
		Object string        `json:"object"`
		Data   []modelObject `json:"data"`
	}{Object: "list", Data: make([]modelObject, 0, len(listed))}
	seen := make(map[string]bool, len(listed))
	for _, lm := range listed {
		id := s.Registry.Selector(lm.Provider, lm.Model.ID)
		if seen[id] {
			continue
		}
		seen[id] = true
		obj := modelObject{ID: id, Object: "model", Created: lm.Model.Created, OwnedBy: lm.Provider.Name()}
		if md, ok := catalog.Lookup(lm.Provider.Type(), lm.Model.ID); ok {
			obj.Metadata = &md
		}
		out.Data = append(out.Data, obj)
	}
	body, _ := json.Marshal(out)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
