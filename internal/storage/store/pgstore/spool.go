package pgstore

import (
	"encoding/binary"
	"fmt"

	"github.com/modelgate/modelgate/internal/storage/records"
)

// Spool keeps, durably on the process's own disk, the audit entries and
// usage records the database could not take, until the writer has
// written them. Records are opaque to it.
type Spool interface {
	// Put stores values durably, in one transaction, and returns once
	// they are on disk.
	Put(values [][]byte) error
	// Oldest returns up to n of the oldest stored values with their keys.
	Oldest(n int) (keys, values [][]byte, err error)
	// Remove deletes the values of keys.
	Remove(keys [][]byte) error
	// Len returns how many values are stored.
	Len() (int, error)
}

// Spooled record kinds: the first byte of a spooled value.
const (
	spoolEntry = 'e'
	spoolUsage = 'u'
)

// encodeSpooled returns q as a spool value: for an entry, spoolEntry, the
// stored head and an empty request body each as a uvarint length and
// bytes, then the bodies record (encodeEntry, which holds the request
// body; values spooled by earlier versions carry it here instead); for a
// usage record, spoolUsage and its JSON (records.EncodeUsageJSON). What
// PostgreSQL would store, so that decoding gives back what writing
// expects.
func encodeSpooled(q queued) ([]byte, error) {
	if q.u != nil {
		b, err := records.EncodeUsageJSON(q.u)
		if err != nil {
			return nil, err
		}
		return append([]byte{spoolUsage}, b...), nil
	}
	head, bodies, err := encodeEntry(q.e, nil)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 2+binary.MaxVarintLen64+len(head)+len(bodies))
	b = append(b, spoolEntry)
	b = binary.AppendUvarint(b, uint64(len(head)))
	b = append(b, head...)
	b = binary.AppendUvarint(b, 0)
	return append(b, bodies...), nil
}

// decodeSpooled reads a value of encodeSpooled.
func decodeSpooled(b []byte) (queued, error) {
	if len(b) == 0 {
		return queued{}, errCorrupt
	}
	switch b[0] {
	case spoolUsage:
		u, err := records.DecodeUsageJSON(b[1:])
		if err != nil {
			return queued{}, err
		}
		return queued{u: u, size: 512}, nil
	case spoolEntry:
		head, rest, ok := cutUvarint(b[1:])
		if !ok {
			return queued{}, errCorrupt
		}
		req, bodies, ok := cutUvarint(rest)
		if !ok {
			return queued{}, errCorrupt
		}
		e, err := decodeHead(head)
		if err != nil {
			return queued{}, err
		}
		if err := restoreBodies(e, req, bodies); err != nil {
			return queued{}, err
		}
		return queued{e: e, size: int64(len(b))}, nil
	}
	return queued{}, fmt.Errorf("postgres: spooled record of unknown kind %q", b[0])
}

// cutUvarint reads a uvarint length and that many bytes from b.
func cutUvarint(b []byte) (field, rest []byte, ok bool) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, false
	}
	return b[k : k+int(n)], b[k+int(n):], true
}
