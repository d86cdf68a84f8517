package admin

import (
	"errors"
	"net/http"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// writeUnavailable answers 503 storage_unavailable when err says the
// storage backend could not be reached (store.ErrUnavailable) and reports
// whether it did. The change was not made; the client may
// retry once the backend answers again.
func writeUnavailable(w http.ResponseWriter, err error) bool {
	return unavailable(w, err, "the storage backend is unreachable; the change was not made, retry later")
}

// writeReadUnavailable is writeUnavailable for a read.
func writeReadUnavailable(w http.ResponseWriter, err error) bool {
	return unavailable(w, err, "the storage backend is unreachable; retry later")
}

// unavailable answers 503 storage_unavailable with msg and Retry-After
// when err is store.ErrUnavailable, and reports whether it did.
func unavailable(w http.ResponseWriter, err error, msg string) bool {
	if !errors.Is(err, store.ErrUnavailable) {
		return false
	}
	w.Header().Set("Retry-After", "5")
	apierr.Write(w, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, msg).WithCode("storage_unavailable"))
	return true
}
