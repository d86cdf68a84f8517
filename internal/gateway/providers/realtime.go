package providers

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/coder/websocket"
)

// EndpointRealtime is the realtime API: a WebSocket session at
// <base>/realtime?model=<model>.
const EndpointRealtime Endpoint = "realtime"

// RealtimeDialer is a provider whose upstream has a realtime API.
type RealtimeDialer interface {
	// DialRealtime opens a WebSocket session with the upstream's realtime
	// endpoint for model, offering subprotocols, with the instance's
	// credentials. When the upstream answers the handshake with an error,
	// resp is that answer (its body may be read) and err is not nil.
	DialRealtime(ctx context.Context, model string, subprotocols []string) (conn *websocket.Conn, resp *http.Response, err error)
}

// errNoRealtime is returned by DialRealtime on a type without a realtime
// API.
var errNoRealtime = errors.New("the provider has no realtime API")

// DialRealtime implements RealtimeDialer for types that list
// EndpointRealtime.
func (p *OpenAICompat) DialRealtime(ctx context.Context, model string, subprotocols []string) (*websocket.Conn, *http.Response, error) {
	if !p.Supports(EndpointRealtime) || p.t.Deployments {
		return nil, nil, errNoRealtime
	}
	h := make(http.Header)
	p.setHeaders(h)
	u := p.endpointURL(EndpointRealtime, model) + "?model=" + url.QueryEscape(model)
	return websocket.Dial(ctx, u, &websocket.DialOptions{HTTPClient: p.client, HTTPHeader: h, Subprotocols: subprotocols})
}
