package admin

import (
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// PricingOverrideList is the answer of GET /admin/pricing.
type PricingOverrideList struct {
	// Overrides are every override in force, by provider then model;
	// rows of source config are read-only.
	Overrides []pricing.Override `json:"overrides"`
}

// pricingWrite is the body of PUT /admin/pricing.
type pricingWrite struct {
	Provider string          `json:"provider"`
	Model    string          `json:"model"`
	Pricing  catalog.Pricing `json:"pricing"`
}

// pricingKey is the body of DELETE /admin/pricing.
type pricingKey struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
}

// RecalcWait is how long POST /admin/usage/recalculate waits for its job
// before it answers with the job still running.
const RecalcWait = 2 * time.Second

// pricingService returns the override service, or answers 503.
func (h *Handler) pricingService(w http.ResponseWriter) *pricing.Service {
	if h.opts.Pricing == nil {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"price overrides are not available").WithCode("pricing_unavailable"))
	}
	return h.opts.Pricing
}

func (h *Handler) listPricing(w http.ResponseWriter, _ *http.Request, _ params) {
	if s := h.pricingService(w); s != nil {
		writeJSON(w, http.StatusOK, PricingOverrideList{Overrides: s.List()})
	}
}

func (h *Handler) putPricing(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.pricingService(w)
	if s == nil {
		return
	}
	var req pricingWrite
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	o, err := s.Put(req.Provider, req.Model, req.Pricing)
	if err != nil {
		pricingError(w, err)
		return
	}
	h.changed(ChangedPricing)
	h.opts.Logger.Info("price override written", zap.String("provider", o.Provider), zap.String("model", o.Model))
	writeJSON(w, http.StatusOK, o)
}

func (h *Handler) deletePricing(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.pricingService(w)
	if s == nil {
		return
	}
	var req pricingKey
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	if req.Provider == "" || req.Model == "" {
		field := "provider"
		if req.Provider != "" {
			field = "model"
		}
		apierr.Write(w, apierr.InvalidRequest(field+": is required").WithCode(apierr.CodeInvalidValue).WithParam(field))
		return
	}
	if err := s.Delete(req.Provider, req.Model); err != nil {
		pricingError(w, err)
		return
	}
	h.changed(ChangedPricing)
	h.opts.Logger.Info("price override deleted", zap.String("provider", req.Provider), zap.String("model", req.Model))
	w.WriteHeader(http.StatusNoContent)
}

// pricingError answers an error of the pricing domain: 409
// pricing_override_managed, 404 pricing_override_not_found, 400
// invalid_value naming the field, 503 or 500 for the storage.
func pricingError(w http.ResponseWriter, err error) {
	writeRowError(w, err, rowErrors{managed: pricing.ErrManaged, notFound: pricing.ErrNotFound, invalid: pricing.ErrInvalid,
		code: "pricing_override", changeIn: "the configuration", store: "pricing"})
}

// recalculator returns the recalculator, or answers 503 when usage
// tracking is off.
func (h *Handler) recalculator(w http.ResponseWriter) *pricing.Recalculator {
	if h.opts.Recalc == nil {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"usage recalculation is not available: usage tracking is off").WithCode("usage_unavailable"))
	}
	return h.opts.Recalc
}

func (h *Handler) recalculateUsage(w http.ResponseWriter, r *http.Request, _ params) {
	rc := h.recalculator(w)
	if rc == nil {
		return
	}
	var req pricing.RecalcRequest
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	job, err := rc.Start(req, RecalcWait)
	if err != nil {
		pricingError(w, err)
		return
	}
	h.opts.Logger.Info("usage recalculation started", zap.String("id", job.ID), zap.String("start_date", req.StartDate),
		zap.String("end_date", req.EndDate), zap.String("status", job.Status))
	writeJSON(w, http.StatusAccepted, job)
}

func (h *Handler) getRecalculation(w http.ResponseWriter, _ *http.Request, p params) {
	rc := h.recalculator(w)
	if rc == nil {
		return
	}
	job, ok := rc.Status(p["id"])
	if !ok {
		apierr.Write(w, apierr.NotFound("no recalculation "+p["id"]+" on this gateway process").WithCode("recalculation_not_found"))
		return
	}
	writeJSON(w, http.StatusOK, job)
}
