package proxy

import (
	"bufio"
	"bytes"
	"net/http"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/providers/translate"
	"github.com/modelgate/modelgate/reqinfo"
)

// translation turns an upstream answer of the provider's shape into the
// client's shape.
type translation struct {
	response func(upstream []byte) ([]byte, translate.Usage, error)
	stream   func() streamConverter
}

// streamConverter is a stateful event translator (see package translate).
type streamConverter interface {
	Feed(ev translate.Event) ([]byte, error)
	Finish() []byte
	Usage() (translate.Usage, bool)
}

func toInfoUsage(u translate.Usage) reqinfo.Usage {
	return reqinfo.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens,
		CachedInputTokens: u.CachedInputTokens, CacheWriteInputTokens: u.CacheWriteInputTokens,
		ReasoningTokens: u.ReasoningTokens}
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
	c.info.SetUsage(toInfoUsage(usage))
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
			c.info.SetUsage(toInfoUsage(u))
		}
	}()
	for {
		raw, rerr := events.next()
		var b []byte
		var ferr error
		if ev, ok := parseEvent(raw); ok {
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

// parseEvent reads the name and data of one raw server-sent event. Events
// without data (comments, blank lines) report false.
func parseEvent(raw []byte) (translate.Event, bool) {
	var ev translate.Event
	var data []byte
	hasData := false
	for len(raw) > 0 {
		line := raw
		if i := bytes.IndexByte(raw, '\n'); i >= 0 {
			line, raw = raw[:i], raw[i+1:]
		} else {
			raw = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		switch {
		case bytes.HasPrefix(line, []byte("event:")):
			ev.Name = string(bytes.TrimSpace(line[6:]))
		case bytes.HasPrefix(line, []byte("data:")):
			d := bytes.TrimPrefix(line[5:], []byte{' '})
			if hasData {
				data = append(append(data, '\n'), d...)
			} else {
				data, hasData = d, true
			}
		}
	}
	ev.Data = data
	return ev, hasData
}

// chainConverter runs two converters in a row: the first one's output
// events are fed to the second (Anthropic → chat → Responses).
type chainConverter struct {
	first, second streamConverter
	src           bytes.Reader
	events        *eventReader
}

// Feed implements streamConverter.
func (cc *chainConverter) Feed(ev translate.Event) ([]byte, error) {
	mid, err := cc.first.Feed(ev)
	out, err2 := cc.pipe(mid)
	if err == nil {
		err = err2
	}
	return out, err
}

// Finish implements streamConverter.
func (cc *chainConverter) Finish() []byte {
	out, _ := cc.pipe(cc.first.Finish())
	return append(out, cc.second.Finish()...)
}

// Usage implements streamConverter.
func (cc *chainConverter) Usage() (translate.Usage, bool) {
	if u, ok := cc.second.Usage(); ok {
		return u, ok
	}
	return cc.first.Usage()
}

func (cc *chainConverter) pipe(mid []byte) ([]byte, error) {
	var out []byte
	cc.src.Reset(mid)
	if cc.events == nil {
		cc.events = &eventReader{r: bufio.NewReaderSize(&cc.src, 4<<10)}
	} else {
		cc.events.r.Reset(&cc.src)
	}
	r := cc.events
	for {
		raw, rerr := r.next()
		if ev, ok := parseEvent(raw); ok {
			o, err := cc.second.Feed(ev)
			out = append(out, o...)
			if err != nil {
				return out, err
			}
		}
		if rerr != nil {
			return out, nil
		}
	}
}
