package boltstore

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// This file writes records the way earlier versions did (JSON heads with
// a separate meta, bodies and request body, one index key per entry and
// term, JSON usage records), so tests can check that they still read.

// legacyEncodeEntry returns the JSON head and the version 2 bodies record
// of e, as earlier versions stored them.
func legacyEncodeEntry(e *audit.Entry) (head, bodies []byte, err error) {
	h := *e
	h.Data = e.Data.WithoutBodies()
	if head, err = json.Marshal(&h); err != nil {
		return nil, nil, fmt.Errorf("encode audit entry: %w", err)
	}
	d := e.Data
	if d == nil {
		return head, nil, nil
	}
	some := len(d.ResponseBody) > 0
	for _, a := range d.Attempts {
		some = some || len(a.ResponseBody) > 0
	}
	for _, r := range d.RequestRevisions {
		some = some || len(r.Body) > 0
	}
	if !some {
		return head, nil, nil
	}
	b := []byte{bodiesVersion}
	b = appendBody(b, d.ResponseBody)
	b = binary.AppendUvarint(b, uint64(len(d.Attempts)))
	for _, a := range d.Attempts {
		b = appendBody(b, a.ResponseBody)
	}
	b = binary.AppendUvarint(b, uint64(len(d.RequestRevisions)))
	for _, r := range d.RequestRevisions {
		b = appendBody(b, r.Body)
	}
	return head, b, nil
}

// legacyEncodeMeta returns the bucketMeta value of e.
func legacyEncodeMeta(e *audit.Entry) []byte {
	return appendMeta([]byte{metaVersion}, e, []byte(searchText(e)))
}

// legacyIndexKeys returns the one-per-entry index keys of an entry.
func legacyIndexKeys(m *entryMeta, id audit.ID) [][]byte {
	var keys [][]byte
	for _, t := range m.terms(id[:]) {
		keys = append(keys, append(bytes.Clone(t[:len(t)-slotLen]), id[:]...))
	}
	return keys
}

// legacyPutEntry stores e in tx as earlier versions did, with its hour
// row added as a batch would.
func legacyPutEntry(tx *bbolt.Tx, e *audit.Entry) error {
	head, bodies, err := legacyEncodeEntry(e)
	if err != nil {
		return err
	}
	meta := legacyEncodeMeta(e)
	if err := put(tx, bucketEntries, e.ID[:], head); err != nil {
		return err
	}
	if bodies != nil {
		if err := put(tx, bucketBodies, e.ID[:], bodies); err != nil {
			return err
		}
	}
	if e.Data != nil && len(e.Data.RequestBody) > 0 {
		if err := put(tx, bucketRequestBodies, e.ID[:], e.Data.RequestBody); err != nil {
			return err
		}
	}
	if err := put(tx, bucketMeta, e.ID[:], meta); err != nil {
		return err
	}
	m, err := decodeMeta(meta)
	if err != nil {
		return err
	}
	idx, err := bucket(tx, bucketIndex)
	if err != nil {
		return err
	}
	for _, k := range legacyIndexKeys(&m, e.ID) {
		if err := idx.Put(k, empty); err != nil {
			return err
		}
	}
	h := audit.AuditHourOf(e)
	a := &batchAggs{}
	a.BeginBatch()
	a.auditHours[string(auditHourKey(&h))] = &h
	return a.flushAuditHours(tx)
}

// legacyPutUsage stores r in tx as a JSON record, as earlier versions did
// (without aggregates).
func legacyPutUsage(tx *bbolt.Tx, r *audit.UsageRecord) error {
	rec, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return put(tx, bucketUsage, r.ID[:], rec)
}
