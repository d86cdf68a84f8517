package admin

import (
	"net/http"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// CacheStatus is the answer of GET /admin/cache: whether the response
// cache is on, its settings, its content and its use since start.
type CacheStatus struct {
	// Enabled reports whether the response cache is on.
	Enabled bool `json:"enabled"`
	// Scope is user_path or global.
	Scope string `json:"scope"`
	cache.Stats
}

// CachePurge is the answer of POST /admin/cache/purge.
type CachePurge struct {
	// Purged is the number of entries deleted.
	Purged int `json:"purged"`
}

// cachePurgeBody is the body of POST /admin/cache/purge: a model and/or
// user_path filter, or the confirmation "purge" to delete everything.
type cachePurgeBody struct {
	Confirmation string `json:"confirmation"`
	Model        string `json:"model"`
	UserPath     string `json:"user_path"`
}

// cacheStatus describes the cache; zeroed (enabled false) when it is off.
func (h *Handler) cacheStatus() (CacheStatus, error) {
	cc := h.opts.Config.Cache
	st := CacheStatus{Scope: config.CacheScopeUserPath}
	if cc.Global() {
		st.Scope = config.CacheScopeGlobal
	}
	if h.opts.Cache == nil {
		st.MaxBytes, st.MaxEntryBytes, st.TTLSeconds = cc.Limit(), cc.EntryLimit(), int64(cc.TTL().Seconds())
		return st, nil
	}
	st.Enabled = true
	var err error
	st.Stats, err = h.opts.Cache.Stats()
	return st, err
}

func (h *Handler) getCache(w http.ResponseWriter, _ *http.Request, _ params) {
	st, err := h.cacheStatus()
	if err != nil {
		h.opts.Logger.Warn("response cache: forgetting expired entries failed", zap.Error(err))
	}
	writeJSON(w, http.StatusOK, st)
}

func (h *Handler) purgeCache(w http.ResponseWriter, r *http.Request, _ params) {
	var req cachePurgeBody
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return
	}
	filtered := req.Model != "" || req.UserPath != ""
	if !filtered {
		if ae := confirmation(req.Confirmation, "purge", "purging every cached response"); ae != nil {
			apierr.Write(w, ae)
			return
		}
	}
	if h.opts.Cache == nil {
		writeJSON(w, http.StatusOK, CachePurge{})
		return
	}
	n, err := h.opts.Cache.Purge(cache.Filter{Model: req.Model, UserPath: req.UserPath})
	if err != nil {
		h.opts.Logger.Error("response cache purge failed", zap.Error(err))
		apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
			"the response cache store failed; see the gateway log").WithCode("storage_error"))
		return
	}
	h.opts.Logger.Info("response cache purged", zap.Int("entries", n), zap.String("model", req.Model), zap.String("user_path", req.UserPath))
	writeJSON(w, http.StatusOK, CachePurge{Purged: n})
}
