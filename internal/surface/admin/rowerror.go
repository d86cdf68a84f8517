package admin

import (
	"errors"
	"net/http"
	"strings"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// rowErrors are the sentinel errors of a store of admin-managed rows
// beside configuration rows (virtual models, price overrides), and how
// the answers name them.
type rowErrors struct {
	// managed, notFound and invalid are the store's sentinels.
	managed, notFound, invalid error
	// code starts the error codes: <code>_managed, <code>_not_found.
	code string
	// changeIn says where a configuration row is changed instead.
	changeIn string
	// store names the store in the answer to any other failure.
	store string
}

// writeRowError answers err of such a store: 409 <code>_managed for a
// configuration row, 404 <code>_not_found, 400 invalid_value (without
// the sentinel's prefix, with param naming the field at fault when one
// is), 503 while the storage is unreachable, else 500.
func writeRowError(w http.ResponseWriter, err error, re rowErrors) {
	msg := err.Error()
	switch {
	case errors.Is(err, re.managed):
		apierr.Write(w, apierr.New(http.StatusConflict, apierr.TypeInvalidRequest,
			msg+"; change it in "+re.changeIn).WithCode(re.code+"_managed"))
	case errors.Is(err, re.notFound):
		apierr.Write(w, apierr.NotFound(msg).WithCode(re.code+"_not_found"))
	case errors.Is(err, re.invalid):
		e := apierr.InvalidRequest(strings.TrimPrefix(msg, re.invalid.Error()+": ")).WithCode(apierr.CodeInvalidValue)
		if param := apierr.ParamOf(err); param != "" {
			e = e.WithParam(param)
		}
		apierr.Write(w, e)
	default:
		if writeUnavailable(w, err) {
			return
		}
		apierr.Write(w, apierr.New(http.StatusInternalServerError, apierr.TypeProvider,
			"the "+re.store+" store failed; see the gateway log").WithCode("storage_error"))
	}
}
