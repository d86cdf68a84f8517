package boltstore

import (
	"encoding/binary"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/records"
)

// Entry heads. bucketEntries maps an entry id to its head: the entry
// without bodies. Two formats are stored:
//
//   - JSON (the first byte is '{'), written by earlier versions, whose
//     meta lives in bucketMeta and whose bodies live in bucketBodies and
//     bucketRequestBodies;
//
//   - binary, written now, which carries its own meta and points to its
//     bodies:
//
//     headVersion (1 byte)
//     bodies reference (headRefLen bytes): the key of the body chunk
//     (16 bytes), the offset and length of the entry's bodies record in
//     that chunk (4 bytes big-endian each); length 0: no bodies
//     meta: the status (uvarint), then user path, session id, requested
//     model, resolved model, provider name, provider type and the search
//     text, each length-prefixed (see entryMeta)
//     the other fields, in the order of entryFields (see fields), then
//     those of tailFields, absent from heads written before them
//
// The id is the key and is not repeated. Lists and filters read the meta
// without decoding the rest.
const (
	headVersion = 2
	headRefLen  = 16 + 4 + 4
	// headMetaAt is where the meta starts.
	headMetaAt = 1 + headRefLen
)

// isBinaryHead reports whether a stored head is in the binary format.
func isBinaryHead(v []byte) bool { return len(v) > headMetaAt && v[0] == headVersion }

// encodeHead returns the binary head of e with an empty bodies reference,
// and the length of its meta (which starts at headMetaAt).
func encodeHead(e *audit.Entry) (head []byte, err error) {
	var buf [512]byte
	search := appendSearch(buf[:0], e)
	w := fieldWriter{b: make([]byte, headMetaAt, headSizeHint(e, search))}
	w.b[0] = headVersion
	w.b = appendMeta(w.b, e, search)
	entryFields(&w, e)
	tailFields(&w, e)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// headSizeHint is the buffer to encode e's head in, with room to spare: the
// fixed fields, the meta (whose search text is search), and the fields
// whose length varies from one request to the next, so that encoding does
// not have to grow the buffer.
func headSizeHint(e *audit.Entry, search []byte) int {
	n := 512 + len(search) + len(e.RequestID) + len(e.SessionID) + len(e.Path) + len(e.ClientIP) + len(e.UserPath) +
		len(e.RequestedModel) + len(e.ResolvedModel) + len(e.ProviderName)
	if d := e.Data; d != nil {
		n += headerBytes(d) + len(d.UserAgent) + len(d.ErrorMessage) + len(d.Labels)*32
		for i := range d.Attempts {
			a := &d.Attempts[i]
			n += 64 + len(a.Model) + len(a.ProviderName) + len(a.ErrorMessage) + len(a.ResponseBody)
		}
	}
	return n
}

// headerBytes estimates the encoded size of d's headers.
func headerBytes(d *audit.Data) int {
	if d == nil {
		return 0
	}
	n := 0
	for k, v := range d.RequestHeaders {
		n += len(k) + len(v) + 2
	}
	for k, v := range d.ResponseHeaders {
		n += len(k) + len(v) + 2
	}
	return n
}

// setBodiesRef points a binary head at its bodies record.
func setBodiesRef(head []byte, chunk *audit.ID, off, n int) {
	ref := head[1:headMetaAt]
	copy(ref[:16], chunk[:])
	binary.BigEndian.PutUint32(ref[16:20], uint32(off))
	binary.BigEndian.PutUint32(ref[20:24], uint32(n))
}

// bodiesRef reads the bodies reference of a binary head; n is 0 without
// bodies.
func bodiesRef(head []byte) (chunk []byte, off, n int) {
	ref := head[1:headMetaAt]
	return ref[:16], int(binary.BigEndian.Uint32(ref[16:20])), int(binary.BigEndian.Uint32(ref[20:24]))
}

// appendMeta appends the meta of e (see entryMeta) without a version;
// search is e's search text.
func appendMeta(b []byte, e *audit.Entry, search []byte) []byte {
	b = binary.AppendUvarint(b, uint64(max(0, e.StatusCode)))
	for _, s := range [...]string{e.UserPath, e.SessionID, e.RequestedModel, e.ResolvedModel,
		e.ProviderName, e.Provider} {
		b = appendLP(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(search)))
	return append(b, search...)
}

// readMeta reads a meta written by appendMeta; its fields alias b.
func readMeta(b []byte) (m entryMeta, rest []byte, err error) {
	st, b, ok := readUvarint(b)
	if !ok {
		return m, nil, errCorrupt
	}
	m.status = int(st)
	for _, dst := range [...]*[]byte{&m.userPath, &m.session, &m.reqModel, &m.resModel,
		&m.providerName, &m.providerType, &m.search} {
		if *dst, b, ok = readLP(b); !ok {
			return m, nil, errCorrupt
		}
	}
	return m, b, nil
}

// decodeBinaryHead decodes a binary head stored under id, without bodies.
func decodeBinaryHead(id []byte, v []byte) (*audit.Entry, error) {
	if !isBinaryHead(v) {
		return nil, errCorrupt
	}
	_, rest, err := readMeta(v[headMetaAt:])
	if err != nil {
		return nil, err
	}
	e := new(audit.Entry)
	copy(e.ID[:], id)
	r := fieldReader{b: rest}
	entryFields(&r, e)
	if len(r.b) > 0 {
		tailFields(&r, e)
	}
	if r.err != nil {
		return nil, fmt.Errorf("boltstore: decode audit entry %x: %w", id, r.err)
	}
	return e, nil
}

// tailFields walks the fields added to the binary head after entryFields
// was fixed, in the order they were added: a head written before one of
// them ends before it, and reads it and those after it as zero.
func tailFields(f fields, e *audit.Entry) {
	f.int(&e.SecretsRedacted)
	if !f.more() {
		return
	}
	entryCostFields(f, &e.Cost)
}

// entryCostFields walks an entry's cost object: a presence marker, then
// the input and output costs (optional), the total, the currency and the
// source.
func entryCostFields(f fields, c **audit.EntryCost) {
	present := *c != nil
	f.bool(&present)
	if !present {
		*c = nil
		return
	}
	if f.reading() {
		*c = new(audit.EntryCost)
	}
	f.optF64(&(*c).Input)
	f.optF64(&(*c).Output)
	f.f64(&(*c).Total)
	f.str(&(*c).Currency)
	src := string((*c).Source)
	f.str(&src)
	(*c).Source = catalog.CostSource(src)
}

// decodeStoredHead decodes a head in either format, without bodies.
func decodeStoredHead(id, v []byte) (*audit.Entry, error) {
	if len(v) > 0 && v[0] == '{' {
		return decodeHead(v)
	}
	return decodeBinaryHead(id, v)
}

// tokenFields walks the six token counts.
func tokenFields(f fields, u *catalog.Usage) {
	for _, p := range [...]*int64{&u.InputTokens, &u.OutputTokens, &u.TotalTokens,
		&u.CachedInputTokens, &u.CacheWriteInputTokens, &u.ReasoningTokens} {
		f.i64(p)
	}
}

// Usage records. bucketUsage maps a record id to the record: JSON (the
// first byte is '{') when written by earlier versions, otherwise
// usageVersion followed by the fields of usageFields. The id is the key.
const usageVersion = 2

// usageFields walks a usage record's fields but its id.
func usageFields(f fields, r *audit.UsageRecord) {
	f.id(&r.RequestID)
	f.time(&r.Timestamp)
	f.str(&r.UserPath)
	f.str(&r.SessionID)
	f.str(&r.ProviderName)
	f.str(&r.ProviderType)
	f.str(&r.Model)
	f.str(&r.Endpoint)
	f.str(&r.CacheType)
	tokenFields(f, &r.Usage)
	f.optF64(&r.InputCost)
	f.optF64(&r.OutputCost)
	f.optF64(&r.TotalCost)
	// Added later: a record written before it ends here.
	if f.more() {
		src := string(r.CostSource)
		f.str(&src)
		r.CostSource = catalog.CostSource(src)
	}
	// Added with the usage breakdown.
	if f.more() {
		f.str(&r.AuthKeyID)
		f.int(&r.StatusCode)
		f.i64(&r.DurationNs)
		f.optF64(&r.CostAvoided)
	}
}

// usageSize is about the size of r's stored form.
func usageSize(r *audit.UsageRecord) int {
	return 120 + len(r.UserPath) + len(r.SessionID) + len(r.ProviderName) +
		len(r.ProviderType) + len(r.Model) + len(r.Endpoint) + len(r.CacheType) + len(r.AuthKeyID)
}

// appendUsage appends the stored form of r to b.
func appendUsage(b []byte, r *audit.UsageRecord) ([]byte, error) {
	w := fieldWriter{b: append(b, usageVersion)}
	usageFields(&w, r)
	if w.err != nil {
		return nil, w.err
	}
	return w.b, nil
}

// decodeUsage decodes a record stored under id in either format.
func decodeUsage(id, v []byte) (*audit.UsageRecord, error) {
	if len(v) > 0 && v[0] == '{' {
		r, err := records.DecodeUsageJSON(v)
		if err != nil {
			return nil, fmt.Errorf("boltstore: %w", err)
		}
		return r, nil
	}
	r := new(audit.UsageRecord)
	if len(v) == 0 || v[0] != usageVersion {
		return nil, errCorrupt
	}
	copy(r.ID[:], id)
	f := fieldReader{b: v[1:]}
	usageFields(&f, r)
	if f.err != nil {
		return nil, fmt.Errorf("boltstore: decode usage record %x: %w", id, f.err)
	}
	r.FillCostSource()
	return r, nil
}
