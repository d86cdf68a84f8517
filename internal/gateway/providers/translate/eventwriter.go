package translate

import "github.com/modelgate/modelgate/internal/platform/sse"

// EventWriter writes server-sent events whose data is compact JSON, the
// one framing every stream converter uses: Begin writes "event: NAME\n"
// (left out when name is "") and "data: " (sse.AppendStart), the
// embedded Writer then writes the data, and End writes the blank line
// that ends the event (sse.AppendEnd). The data must hold no newline,
// which compact JSON never does.
//
// When told to Keep, it also remembers where each event's name and data
// are, so that a following converter can take them as sse.Events without
// reading the text again (see Chain).
type EventWriter struct {
	Writer
	keep  bool
	spans []eventSpan
	open  eventSpan
}

// eventSpan locates one written event in Buf.
type eventSpan struct {
	name       string
	start, end int // the data
}

// Reset empties the writer for the next batch of events.
func (e *EventWriter) Reset() {
	e.Writer.Reset()
	e.spans = e.spans[:0]
}

// Keep makes the writer remember its events for Events.
func (e *EventWriter) Keep() { e.keep = true }

// Begin starts an event named name ("" for an event without an event:
// line); what is written next is its data.
func (e *EventWriter) Begin(name string) {
	e.Buf = sse.AppendStart(e.Buf, name)
	e.comma = false
	if e.keep {
		e.open = eventSpan{name: name, start: len(e.Buf)}
	}
}

// End ends the event started by Begin.
func (e *EventWriter) End() {
	if e.keep {
		e.open.end = len(e.Buf)
		e.spans = append(e.spans, e.open)
	}
	e.Buf = sse.AppendEnd(e.Buf)
}

// Done writes the "data: [DONE]" event that ends an OpenAI stream.
func (e *EventWriter) Done() {
	e.Begin("")
	e.Buf = append(e.Buf, "[DONE]"...)
	e.End()
}

// Events calls fn with each event written since the last Reset, in order,
// when the writer keeps them (see Keep). The events point into Buf.
func (e *EventWriter) Events(fn func(sse.Event) bool) {
	for _, s := range e.spans {
		if !fn(sse.Event{Name: s.name, Data: e.Buf[s.start:s.end]}) {
			return
		}
	}
}
