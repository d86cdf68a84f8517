package admin

import (
	"errors"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// createKeyRequest is the body of POST /admin/auth-keys.
type createKeyRequest struct {
	Name            string    `json:"name"`
	UserPath        string    `json:"user_path"`
	DashboardAccess bool      `json:"dashboard_access"`
	Description     string    `json:"description"`
	ExpiresAt       *jsonTime `json:"expires_at"`
}

// updateKeyRequest is the body of PATCH /admin/auth-keys/{id}: absent (or
// null) fields are left unchanged.
type updateKeyRequest struct {
	Name            *string   `json:"name"`
	UserPath        *string   `json:"user_path"`
	DashboardAccess *bool     `json:"dashboard_access"`
	Enabled         *bool     `json:"enabled"`
	ExpiresAt       *jsonTime `json:"expires_at"`
	NeverExpires    bool      `json:"never_expires"`
}

// createdKey is the 201 answer to a create: the key's view and, this once,
// the key itself.
type createdKey struct {
	keys.Key
	Secret string `json:"key"`
}

// keyList is the answer to GET /admin/auth-keys.
type keyList struct {
	Keys       []keys.Key `json:"keys"`
	ServerTime time.Time  `json:"server_time"`
}

// jsonTime decodes an RFC 3339 time with an error naming expires_at.
type jsonTime struct{ time.Time }

// UnmarshalJSON implements json.Unmarshaler.
func (t *jsonTime) UnmarshalJSON(b []byte) error {
	if err := t.Time.UnmarshalJSON(b); err != nil {
		return apierr.FieldMsg("expires_at", "must be an RFC 3339 time such as 2030-01-02T15:04:05Z")
	}
	return nil
}

func (h *Handler) keyService(w http.ResponseWriter) *keys.Service {
	if h.opts.Keys == nil {
		apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
			"API key management is not available yet").WithCode("keys_unavailable"))
	}
	return h.opts.Keys
}

func (h *Handler) listKeys(w http.ResponseWriter, _ *http.Request, _ params) {
	s := h.keyService(w)
	if s == nil {
		return
	}
	writeJSON(w, http.StatusOK, keyList{Keys: s.List(), ServerTime: h.opts.Now().UTC()})
}

func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, _ params) {
	s := h.keyService(w)
	if s == nil {
		return
	}
	var req createKeyRequest
	if e := decodeBody(w, r, &req); e != nil {
		apierr.Write(w, e)
		return
	}
	in := keys.NewKey{Name: req.Name, Description: req.Description, UserPath: req.UserPath, DashboardAccess: req.DashboardAccess}
	if req.ExpiresAt != nil {
		in.ExpiresAt = &req.ExpiresAt.Time
	}
	k, secret, err := s.Create(in)
	if err != nil {
		h.keyError(w, err)
		return
	}
	h.changed(ChangedKeys)
	h.opts.Logger.Info("managed API key created", zap.String("key_id", k.ID),
		zap.String("user_path", k.UserPath), zap.Bool("dashboard_access", k.DashboardAccess))
	w.Header().Set("Location", "/admin/auth-keys/"+k.ID)
	writeJSON(w, http.StatusCreated, createdKey{Key: k, Secret: secret})
}

func (h *Handler) getKey(w http.ResponseWriter, _ *http.Request, p params) {
	s := h.keyService(w)
	if s == nil {
		return
	}
	k, err := s.Get(p["id"])
	if err != nil {
		h.keyError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, k)
}

func (h *Handler) updateKey(w http.ResponseWriter, r *http.Request, p params) {
	s := h.keyService(w)
	if s == nil {
		return
	}
	var req updateKeyRequest
	if e := decodeBody(w, r, &req); e != nil {
		apierr.Write(w, e)
		return
	}
	c := keys.Changes{Name: req.Name, UserPath: req.UserPath, DashboardAccess: req.DashboardAccess, Enabled: req.Enabled,
		NeverExpires: req.NeverExpires}
	if req.ExpiresAt != nil {
		c.ExpiresAt = &req.ExpiresAt.Time
	}
	k, err := s.Update(p["id"], c)
	if err != nil {
		h.keyError(w, err)
		return
	}
	h.changed(ChangedKeys)
	h.opts.Logger.Info("managed API key updated", zap.String("key_id", k.ID),
		zap.String("user_path", k.UserPath), zap.Bool("dashboard_access", k.DashboardAccess), zap.Bool("enabled", k.Enabled))
	writeJSON(w, http.StatusOK, k)
}

func (h *Handler) deactivateKey(w http.ResponseWriter, _ *http.Request, p params) {
	s := h.keyService(w)
	if s == nil {
		return
	}
	k, err := s.Deactivate(p["id"])
	if err != nil {
		h.keyError(w, err)
		return
	}
	h.changed(ChangedKeys)
	h.opts.Logger.Info("managed API key deactivated", zap.String("key_id", k.ID))
	writeJSON(w, http.StatusOK, k)
}

func (h *Handler) deleteKey(w http.ResponseWriter, _ *http.Request, p params) {
	s := h.keyService(w)
	if s == nil {
		return
	}
	if err := s.Delete(p["id"]); err != nil {
		h.keyError(w, err)
		return
	}
	h.changed(ChangedKeys)
	h.opts.Logger.Info("managed API key deleted", zap.String("key_id", p["id"]))
	w.WriteHeader(http.StatusNoContent)
}

// keyError answers a keys.Service error: 404 for an unknown id, 409 for
// enabling an expired key, 400 for invalid input, 500 for a storage failure (logged; the key service's
// errors name keys by id only).
//
// The id is not echoed: a caller who pasted a key where the id belongs
// must not see it come back.
func (h *Handler) keyError(w http.ResponseWriter, err error) {
	var in *apierr.FieldError
	switch {
	case errors.Is(err, keys.ErrNotFound):
		apierr.Write(w, apierr.NotFound("no API key has this id").WithCode("api_key_not_found").WithParam("id"))
	case errors.Is(err, keys.ErrExpiredEnable):
		apierr.Write(w, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest,
			"this API key has expired and cannot be enabled again; create a new key").WithCode("api_key_expired").WithParam("enabled"))
	case errors.As(err, &in):
		apierr.Write(w, apierr.InvalidRequest(in.Error()).WithCode(apierr.CodeInvalidValue).WithParam(in.Field))
	default:
		if writeUnavailable(w, err) {
			return
		}
		h.opts.Logger.Error("managed API key operation failed", zap.Error(err))
		apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
			"the key store failed; see the gateway log").WithCode("storage_error"))
	}
}
