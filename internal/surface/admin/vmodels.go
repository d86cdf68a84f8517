package admin

import (
	"net/http"
	"net/url"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// MaxInventoryRows caps the rows of GET /admin/models.
const MaxInventoryRows = 10000

// VirtualModelList is the answer of GET /admin/virtual-models.
type VirtualModelList struct {
	// VirtualModels are every row in force, by source; managed rows come
	// from configuration and are read-only.
	VirtualModels []VirtualModelView `json:"virtual_models"`
}

// VirtualModelView is a virtual model row as the admin API answers it:
// every field present, defaults spelled out (enabled true, strategy
// round_robin, empty lists); a managed row's timestamps are when the
// configuration declaring it was loaded.
// session_affinity and slowdown stay absent when unset, as absent has its
// own meaning there.
type VirtualModelView struct {
	// Source is the name the row matches.
	Source string `json:"source"`
	// Model is the row's model, when it names one.
	Model string `json:"model"`
	// ProviderName is the row's provider, when it names one.
	ProviderName string `json:"provider_name"`
	// Description is free text.
	Description string `json:"description"`
	// Enabled is false for a model the row disables.
	Enabled bool `json:"enabled"`
	// Strategy is how targets are picked.
	Strategy vmodels.Strategy `json:"strategy"`
	// Targets are the models a virtual model routes to.
	Targets []vmodels.Target `json:"targets"`
	// UserPaths are the paths allowed to use the model; empty is all.
	UserPaths []string `json:"user_paths"`
	// SessionAffinity keeps a session on its target; absent is on.
	SessionAffinity *bool `json:"session_affinity,omitempty"`
	// Slowdown is the extra-time factor; absent is unspecified.
	Slowdown *float64 `json:"slowdown,omitempty"`
	// Managed reports a row from configuration, read-only here.
	Managed bool `json:"managed"`
	// CreatedAt and UpdatedAt are when the row was first and last
	// stored, or for a managed row when its configuration was loaded;
	// always a timestamp, never null.
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Warnings, in the answer to a write only, name the targets that could
	// not be checked: their provider has not listed its models yet.
	Warnings []string `json:"warnings,omitempty"`
}

// virtualModelView spells out row for the admin API.
func virtualModelView(row vmodels.Row) VirtualModelView {
	v := VirtualModelView{Source: row.Source, Model: row.Model, ProviderName: row.ProviderName,
		Description: row.Description, Enabled: row.Enabled == nil || *row.Enabled, Strategy: row.Strategy,
		Targets: row.Targets, UserPaths: row.UserPaths, SessionAffinity: row.SessionAffinity,
		Slowdown: row.Slowdown, Managed: row.Managed}
	if row.CreatedAt != nil {
		v.CreatedAt = *row.CreatedAt
	}
	if row.UpdatedAt != nil {
		v.UpdatedAt = *row.UpdatedAt
	}
	if v.Strategy == "" {
		v.Strategy = vmodels.StrategyRoundRobin
	}
	// A target's weight is spelled out too: absent (0) counts as 1.
	v.Targets = make([]vmodels.Target, len(row.Targets))
	for i, t := range row.Targets {
		t.Weight = t.Share()
		v.Targets[i] = t
	}
	if v.UserPaths == nil {
		v.UserPaths = []string{}
	}
	return v
}

// virtualModelWrite is the body of PUT /admin/virtual-models: the row,
// and old_source to rename a row.
type virtualModelWrite struct {
	vmodels.VirtualModel
	OldSource string `json:"old_source,omitempty"`
}

// FailoverList is the answer of GET /admin/failover.
type FailoverList struct {
	// Routes are every failover route in force, by primary model.
	Routes []vmodels.FailoverRoute `json:"routes"`
}

// vmService returns the virtual-model service, or answers 503 when there
// is none.
func (h *Handler) vmService(w http.ResponseWriter) *vmodels.Service {
	if h.opts.VirtualModels == nil {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"virtual model management is not available").WithCode("virtual_models_unavailable"))
	}
	return h.opts.VirtualModels
}

func (h *Handler) listVirtualModels(w http.ResponseWriter, _ *http.Request, _ params) {
	if s := h.vmService(w); s != nil {
		rows := s.List()
		out := VirtualModelList{VirtualModels: make([]VirtualModelView, len(rows))}
		for i, row := range rows {
			out.VirtualModels[i] = virtualModelView(row)
		}
		writeJSON(w, http.StatusOK, out)
	}
}

func (h *Handler) putVirtualModel(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.vmService(w)
	if s == nil {
		return
	}
	var req virtualModelWrite
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	row, err := s.Put(req.VirtualModel, req.OldSource)
	if err != nil {
		vmError(w, err, "virtual_model")
		return
	}
	h.changed(ChangedVirtualModels)
	h.opts.Logger.Info("virtual model written", zap.String("source", row.Source), zap.String("old_source", req.OldSource))
	v := virtualModelView(row)
	v.Warnings = s.Unverified(row.VirtualModel)
	writeJSON(w, http.StatusOK, v)
}

func (h *Handler) deleteVirtualModel(w http.ResponseWriter, _ *http.Request, p params) {
	s := h.vmService(w)
	if s == nil {
		return
	}
	source, err := url.PathUnescape(p["source"])
	if err != nil {
		apierr.Write(w, apierr.InvalidRequest("source: not a valid URL-encoded model name").WithCode(apierr.CodeInvalidValue).WithParam("source"))
		return
	}
	if err := s.Delete(source); err != nil {
		vmError(w, err, "virtual_model")
		return
	}
	h.changed(ChangedVirtualModels)
	h.opts.Logger.Info("virtual model deleted", zap.String("source", source))
	w.WriteHeader(http.StatusNoContent)
}

func (h *Handler) listFailover(w http.ResponseWriter, _ *http.Request, _ params) {
	if s := h.vmService(w); s != nil {
		writeJSON(w, http.StatusOK, FailoverList{Routes: s.FailoverRoutes()})
	}
}

func (h *Handler) putFailover(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.vmService(w)
	if s == nil {
		return
	}
	var req struct {
		PrimaryModel string   `json:"primary_model"`
		Targets      []string `json:"targets"`
	}
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	route, err := s.PutFailover(req.PrimaryModel, req.Targets)
	if err != nil {
		vmError(w, err, "failover")
		return
	}
	h.changed(ChangedVirtualModels)
	h.opts.Logger.Info("failover route written", zap.String("primary_model", route.PrimaryModel), zap.Strings("targets", route.Targets))
	writeJSON(w, http.StatusOK, route)
}

func (h *Handler) deleteFailover(w http.ResponseWriter, _ *http.Request, p params) {
	s := h.vmService(w)
	if s == nil {
		return
	}
	primary, err := url.PathUnescape(p["primary_model"])
	if err != nil {
		apierr.Write(w, apierr.InvalidRequest("primary_model: not a valid URL-encoded model name").WithCode(apierr.CodeInvalidValue).WithParam("primary_model"))
		return
	}
	if err := s.DeleteFailover(primary); err != nil {
		vmError(w, err, "failover")
		return
	}
	h.changed(ChangedVirtualModels)
	h.opts.Logger.Info("failover route deleted", zap.String("primary_model", primary))
	w.WriteHeader(http.StatusNoContent)
}

// vmError answers an error of the virtual-model service: 409
// <what>_managed for a configuration row, 404 <what>_not_found, 400
// invalid_value for a row or route that does not validate.
func vmError(w http.ResponseWriter, err error, what string) {
	writeRowError(w, err, rowErrors{managed: vmodels.ErrManaged, notFound: vmodels.ErrNotFound, invalid: vmodels.ErrInvalid,
		code: what, changeIn: "the YAML file or the environment", store: "virtual-model"})
}

// listModels answers GET /admin/models: the model inventory, filtered by
// ?category= (400 for a value outside the enum); [] while the registry
// is not ready.
func (h *Handler) listModels(w http.ResponseWriter, r *http.Request, _ params) {
	category := r.URL.Query().Get("category")
	if category != "" && !catalog.ValidCategory(category) {
		apierr.Write(w, apierr.InvalidRequest("category: must be one of all, text_generation, embedding, image, audio, video, utility").
			WithCode(apierr.CodeInvalidValue).WithParam("category"))
		return
	}
	rows := []vmodels.InventoryEntry{}
	if h.opts.Models != nil {
		rows, _ = h.opts.Models(category, MaxInventoryRows)
	}
	writeJSON(w, http.StatusOK, inventoryView(rows))
}
