package admin

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/jsonbody"
)

// maxBodyBytes caps admin request bodies.
const maxBodyBytes = 1 << 20

// writeJSON sends v with status. Admin answers are never cached.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		apierr.Write(w, err)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// decodeBody strictly decodes one JSON object from r's body into dst (see
// jsonbody.Decode): unknown fields, trailing data and bodies over
// maxBodyBytes are refused.
func decodeBody(w http.ResponseWriter, r *http.Request, dst any) *apierr.Error {
	return jsonbody.Decode(w, r, dst, jsonbody.Options{MaxBytes: maxBodyBytes})
}

// confirmed decodes a body of the form {"confirmation": word} for a
// destructive action and reports whether it carries word. Otherwise it has
// answered 400: the decode error, or code confirmation_required naming
// what the action does.
func confirmed(w http.ResponseWriter, r *http.Request, word, action string) bool {
	var req struct {
		Confirmation string `json:"confirmation"`
	}
	if ae := decodeBody(w, r, &req); ae != nil {
		apierr.Write(w, ae)
		return false
	}
	if ae := confirmation(req.Confirmation, word, action); ae != nil {
		apierr.Write(w, ae)
		return false
	}
	return true
}

// confirmation checks a confirmation the caller sent (got) against the
// word action needs, returning the 400 confirmation_required when it is
// not that word.
func confirmation(got, word, action string) *apierr.Error {
	if got != word {
		return apierr.InvalidRequest(action + ` needs {"confirmation":"` + word + `"}`).
			WithCode("confirmation_required").WithParam("confirmation")
	}
	return nil
}
