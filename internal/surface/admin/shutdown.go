package admin

import (
	"net/http"
	"sync"
)

// stopping maps each *http.Server that served a long-lived answer (the
// live log stream) to a channel closed when that server starts shutting
// down: a config reload or a stop. Caddy waits for the server's answers
// to finish before the old configuration goes (by default without a time
// limit), so a stream that stays open would hold the reload, or the stop,
// for as long as its client stays.
var stopping sync.Map // *http.Server → chan struct{}

// serverStopping returns the channel closed when the server of r starts
// shutting down, or nil (never closed) when r carries no server.
func serverStopping(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil
	}
	if c, ok := stopping.Load(srv); ok {
		return c.(chan struct{})
	}
	c := make(chan struct{})
	if prev, loaded := stopping.LoadOrStore(srv, c); loaded {
		return prev.(chan struct{})
	}
	srv.RegisterOnShutdown(func() {
		close(c)
		stopping.Delete(srv)
	})
	return c
}
