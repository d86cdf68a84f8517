package handlers

import (
	"io"
	"net/http"

	"github.com/modelgate/modelgate/internal/request/reqbody"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// readBodyAsProxy takes a request body the way the proxy does: the body
// and scan an earlier stage shared, else reading and scanning it.
func readBodyAsProxy(r *http.Request) {
	if info := reqinfo.From(r.Context()); info != nil && info.Body() != nil {
		return
	}
	b, _ := io.ReadAll(r.Body)
	_, _ = reqbody.Scan(b)
}
