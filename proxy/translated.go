package proxy

import (
	"net/http"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/providers/translate"
	"github.com/modelgate/modelgate/tokens"
)

// translation turns an upstream answer of the provider's shape into the
// client's shape.
type translation struct {
	response func(upstream []byte) ([]byte, tokens.Usage, error)
	stream   func() translate.Stream
}

// relayTranslatedBody translates a whole upstream answer.
func relayTranslatedBody(w http.ResponseWriter, r *http.Request, resp *http.Response, c *call) {
	up, err := readAllSized(resp.Body, sizeHint(resp.ContentLength))
	if err != nil {
		apierr.WriteFor(w, r, apierr.ProviderError(http.StatusBadGateway, c.provider.Name(),
			"reading the upstream response failed: "+err.Error()))
		return
	}
	out, usage, err := c.tr.response(up)
	if err != nil {
		apierr.WriteFor(w, r, apierr.ProviderError(http.StatusBadGateway, c.provider.Name(),
			"the upstream answer could not be translated: "+err.Error()))
		return
	}
	c.info.SetUsage(usage)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Del("Content-Length")
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// relayTranslatedStream translates an upstream event stream event by
// event; eventWriter flushes the translated pieces as relayStream's.
func relayTranslatedStream(w http.ResponseWriter, resp *http.Response, c *call) {
	w.Header().Set("Content-Type", "text/event-stream")
	events := newEventReader(resp.Body)
	defer events.release()
	out := startEventStream(w, resp.StatusCode, events)

	conv := c.tr.stream()
	defer func() {
		if u, ok := conv.Usage(); ok {
			c.info.SetUsage(u)
		}
	}()
	for {
		raw, rerr := events.next()
		var b []byte
		var ferr error
		if ev, ok := translate.ParseEvent(raw); ok {
			b, ferr = conv.Feed(ev)
		}
		if !out.write(b, rerr != nil || ferr != nil) || ferr != nil {
			return
		}
		if rerr != nil {
			out.write(conv.Finish(), true)
			return
		}
	}
}
