package caddymodule

import (
	"encoding/json"
	"net/http"
	"sync/atomic"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/responses"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/boltstore"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
)

// responseServices shares one stored-responses service (and so one
// writer) per store and database across config loads, like
// batchServices.
var responseServices = caddy.NewUsagePool()

// responsesRef hands the stored-responses service that Start opens to the
// proxy, which is built in Provision. Before Start nothing is kept and no
// id is found.
type responsesRef struct {
	svc   atomic.Pointer[responses.Service]
	relay func(w http.ResponseWriter, r *http.Request, provider string)
}

// Keep implements proxy.ResponseStore.
func (p *responsesRef) Keep(r *responses.Record) {
	if s := p.svc.Load(); s != nil {
		s.Keep(r)
	}
}

// Get implements proxy.ResponseStore.
func (p *responsesRef) Get(userPath, id string) (*responses.Record, error) {
	if s := p.svc.Load(); s != nil {
		return s.Get(userPath, id)
	}
	return nil, responses.ErrNotFound
}

// Chain implements proxy.ResponseStore.
func (p *responsesRef) Chain(userPath, id string) ([]json.RawMessage, error) {
	if s := p.svc.Load(); s != nil {
		return s.Chain(userPath, id)
	}
	return nil, responses.ErrNotFound
}

// ServeHTTP serves the stored-response routes, or 503 before Start.
func (p *responsesRef) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s := p.svc.Load()
	if s == nil {
		writeNotReady(w, r, "stored responses")
		return
	}
	(&responses.Handler{Service: s, Relay: p.relay}).ServeHTTP(w, r)
}

// provisionResponses hands the proxy the stored-responses seam when
// responses.enabled is on.
func (a *App) provisionResponses() {
	if !a.effective.Responses.On() {
		return
	}
	a.responsesRef = &responsesRef{relay: a.proxy.RelayStoredResponse}
	a.proxy.Responses = a.responsesRef
	a.proxy.StoredResponses = a.responsesRef
}

// openResponses opens (or shares) the stored-responses service over the
// configured storage.
func (a *App) openResponses() error {
	if a.responsesRef == nil {
		return nil
	}
	st := a.store
	v, _, err := responseServices.LoadOrNew(a.batchesKey(), func() (caddy.Destructor, error) {
		return responses.New(responses.Options{Storage: a.responseStorage(st), Retention: a.effective.Responses.Retention(),
			Logger: a.logger.Named("responses")}), nil
	})
	if err != nil {
		return err
	}
	a.responsesHeld = true
	a.responsesRef.svc.Store(v.(*responses.Service))
	return nil
}

// releaseResponses drops this config's hold on the service; the last
// holder commits what is queued.
func (a *App) releaseResponses() error {
	if !a.responsesHeld {
		return nil
	}
	a.responsesHeld = false
	_, err := responseServices.Delete(a.batchesKey())
	return err
}

// responseStorage is where stored responses are kept.
func (a *App) responseStorage(st *store.Store) responses.Storage {
	if a.pg != nil {
		return pgstore.NewResponses(a.pg)
	}
	return boltstore.NewResponses(st)
}
