package mock

import "net/http"

// modelCreated is the fixed "created" timestamp of every listed model.
const modelCreated = 1700000000

// model is an entry of the model list.
type model struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

type modelList struct {
	Object string  `json:"object"`
	Data   []model `json:"data"`
}

// modelIDs returns the chat then the embedding model ids, without duplicates.
func (h *handler) modelIDs() []string {
	seen := map[string]bool{}
	var ids []string
	for _, list := range [][]string{h.opts.Models, h.opts.EmbeddingModels, h.opts.SpeechModels, h.opts.TranscriptionModels} {
		for _, id := range list {
			if !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// handleModels serves GET /models.
func (h *handler) handleModels(w http.ResponseWriter) {
	ids := h.modelIDs()
	list := modelList{Object: "list", Data: make([]model, 0, len(ids))}
	for _, id := range ids {
		list.Data = append(list.Data, newModel(id))
	}
	writeJSON(w, http.StatusOK, list)
}

// handleModel serves GET /models/{id}.
func (h *handler) handleModel(w http.ResponseWriter, id string) {
	if !h.chatModels[id] && !h.embeddingModels[id] && !h.speechModels[id] && !h.transcriptionModels[id] {
		writeError(w, modelNotFound(id))
		return
	}
	writeJSON(w, http.StatusOK, newModel(id))
}

func newModel(id string) model {
	return model{ID: id, Object: "model", Created: modelCreated, OwnedBy: "mock"}
}
