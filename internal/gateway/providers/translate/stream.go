package translate

import (
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/platform/sse"
)

// Stream converts an upstream event stream into another shape, one event
// at a time. Feed takes each upstream event in order and returns the
// events to send, framed, possibly none; an error from Feed means the
// event was unreadable (not JSON): nothing was sent for it and the stream
// goes on. Finish returns what is still owed when the upstream stream
// ends cleanly: the closing events, or an error event in the client's
// shape when the answer was not complete. Abort ends the stream with an
// error event in the client's shape whatever was received, for an
// upstream that broke off (a read error, a cut mid-event): code is the
// gateway error code of the cause (such as upstream_read_failed) and
// message says what happened; it returns nothing when the stream already
// ended. The results of Feed, Finish and Abort are reused by the next
// call. Usage reports the token usage seen so far and whether the
// upstream reported any. A Stream is not safe for concurrent use.
type Stream interface {
	Feed(ev sse.Event) ([]byte, error)
	Finish() []byte
	Abort(code, message string) []byte
	Usage() (catalog.Usage, bool)
}

// Source is a Stream whose output events can also be taken as values: its
// Output is the EventWriter that Feed and Finish write to.
type Source interface {
	Stream
	Output() *EventWriter
}
