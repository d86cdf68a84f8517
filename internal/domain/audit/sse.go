package audit

import (
	"context"
	"encoding/json"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/modelgate/modelgate/internal/platform/sse"
)

// HeartbeatEvery is how often Stream sends a heartbeat.
const HeartbeatEvery = 15 * time.Second

// Data returns the JSON payload of the event: the preview of an audit
// event, the record of a usage event.
func (ev *LiveEvent) Data() ([]byte, error) {
	if ev.Kind == EventUsage {
		return json.Marshal(&ev.Usage)
	}
	return json.Marshal(&ev.Audit)
}

// ParseCursor reads the replay cursor of a live stream request: the
// Last-Event-ID header (what a reconnecting browser sends, so it wins),
// else the cursor query parameter. ok is false when neither is given; a
// value that is not a sequence number is a 400 error.
func ParseCursor(v url.Values, lastEventID string) (cursor uint64, ok bool, err error) {
	s := lastEventID
	if s == "" {
		s = v.Get("cursor")
	}
	if s == "" {
		return 0, false, nil
	}
	n, e := strconv.ParseUint(s, 10, 64)
	if e != nil {
		return 0, false, badParam("cursor", "cursor must be the sequence number of a live event")
	}
	return n, true, nil
}

// resetData is the payload of a reset event.
type resetData struct {
	// Reason says why the client must reload.
	Reason string `json:"reason"`
	// Last is the sequence number of the latest event.
	Last uint64 `json:"last"`
}

// heartbeatData is the payload of a heartbeat event.
type heartbeatData struct {
	Time time.Time `json:"time"`
}

// Stream writes the live stream of h to w as server-sent events until ctx
// is done, a write fails, or the client falls a whole buffer behind
// (ErrSlowSubscriber: the caller ends the response; the client reconnects
// and gets a reset). flush, if not nil, is called after each group of
// events. With a cursor the missed events are replayed first, or a reset
// event is sent when they are gone. Every event carries an id: its own
// sequence number, and for heartbeats and resets the sequence number of
// the latest event, so a reconnecting client resumes at the right place.
// A heartbeat is sent every heartbeat (HeartbeatEvery when not positive).
func (h *Hub) Stream(ctx context.Context, w io.Writer, flush func() error, cursor uint64, hasCursor bool, heartbeat time.Duration) error {
	if heartbeat <= 0 {
		heartbeat = HeartbeatEvery
	}
	sub, reset := h.Subscribe(cursor, hasCursor)
	defer sub.Close()
	var buf []byte
	send := func() error {
		if len(buf) == 0 {
			return nil
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		buf = buf[:0]
		if flush != nil {
			return flush()
		}
		return nil
	}
	if reset {
		last := sub.Delivered()
		data, _ := json.Marshal(resetData{Reason: "cursor outside the replay buffer", Last: last})
		buf = sse.Append(buf, last, EventReset, data)
	} else {
		// Tell the client where it stands even before the first event.
		buf = append(buf, ": connected\n\n"...)
	}
	if err := send(); err != nil {
		return err
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	var evs []LiveEvent
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			data, _ := json.Marshal(heartbeatData{Time: time.Now().UTC()})
			buf = sse.Append(buf, sub.Delivered(), EventHeartbeat, data)
		case <-sub.Ready():
			var err error
			if evs, err = sub.Read(evs[:0]); err != nil {
				return err
			}
			for i := range evs {
				data, err := evs[i].Data()
				if err != nil {
					return err
				}
				buf = sse.Append(buf, evs[i].Seq, evs[i].Kind, data)
			}
			clear(evs)
		}
		if err := send(); err != nil {
			return err
		}
	}
}
