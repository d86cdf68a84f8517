package translate

import "github.com/modelgate/modelgate/tokens"

// Stream converts an upstream event stream into another shape, one event
// at a time. Feed takes each upstream event in order and returns the
// events to send, framed, possibly none; Finish returns what is still owed
// when the upstream stream ends. Their results are reused by the next
// call. An error from Feed means the event was unreadable; Usage reports
// the token usage seen so far and whether the upstream reported any. A
// Stream is not safe for concurrent use.
type Stream interface {
	Feed(ev Event) ([]byte, error)
	Finish() []byte
	Usage() (tokens.Usage, bool)
}

// Source is a Stream whose output events can also be taken as values: its
// Output is the EventWriter that Feed and Finish write to.
type Source interface {
	Stream
	Output() *EventWriter
}
