package boltstore

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// fields is one direction of the binary record format of audit entries
// and usage records: the same walk over a record's fields (see
// entryFields, usageFields) either appends every field to a buffer
// (fieldWriter) or reads every field back (fieldReader), so the two
// directions cannot disagree on the order.
//
// Encodings: integers are varints (zigzag for signed ones), booleans one
// byte, floats 8 bytes big-endian, strings length-prefixed, times a
// varint of Unix nanoseconds plus one (0: the zero time), optional values
// (pointers, raw JSON, maps, slices) a presence marker folded into their
// count or length: 0 for nil, n+1 for n elements.
type fields interface {
	str(*string)
	i64(*int64)
	int(*int)
	bool(*bool)
	f64(*float64)
	time(*time.Time)
	id(*audit.ID)
	// raw is raw JSON: nil or its bytes.
	raw(*json.RawMessage)
	optF64(**float64)
	optI64(**int64)
	strMap(*map[string]string)
	strs(*[]string)
	// count handles the length of a slice of structs: a writer appends n
	// (-1 for nil) and returns it; a reader returns the stored one.
	count(n int) int
	// reading reports whether the walk decodes.
	reading() bool
	// more reports whether fields follow: always when encoding; when
	// decoding, whether the record has bytes left, so that fields added
	// at the end of a record read as zero from records written before
	// them.
	more() bool
}

// errNotFinite rejects records with a NaN or infinite number, which
// their JSON form cannot carry.
var errNotFinite = errors.New("boltstore: record holds a NaN or infinite number")

// fieldWriter appends fields to b.
type fieldWriter struct {
	b   []byte
	err error
}

func (w *fieldWriter) str(s *string) { w.b = appendLP(w.b, *s) }
func (w *fieldWriter) i64(v *int64)  { w.b = binary.AppendVarint(w.b, *v) }
func (w *fieldWriter) int(v *int)    { w.b = binary.AppendVarint(w.b, int64(*v)) }
func (w *fieldWriter) bool(v *bool) {
	if *v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *fieldWriter) f64(v *float64) {
	if math.IsNaN(*v) || math.IsInf(*v, 0) {
		w.err = errNotFinite
	}
	w.b = appendFloat(w.b, *v)
}

func (w *fieldWriter) time(t *time.Time) {
	if t.IsZero() {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, zigzag(t.UnixNano())+1)
}

func (w *fieldWriter) id(v *audit.ID) { w.b = append(w.b, v[:]...) }

func (w *fieldWriter) raw(m *json.RawMessage) {
	if *m == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(*m))+1)
	w.b = append(w.b, *m...)
}

func (w *fieldWriter) optF64(p **float64) {
	if *p == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = append(w.b, 1)
	w.f64(*p)
}

func (w *fieldWriter) optI64(p **int64) {
	if *p == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = append(w.b, 1)
	w.i64(*p)
}

func (w *fieldWriter) strMap(m *map[string]string) {
	if *m == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(*m))+1)
	for k, v := range *m {
		w.b = appendLP(appendLP(w.b, k), v)
	}
}

func (w *fieldWriter) strs(s *[]string) {
	if *s == nil {
		w.b = append(w.b, 0)
		return
	}
	w.b = binary.AppendUvarint(w.b, uint64(len(*s))+1)
	for _, v := range *s {
		w.b = appendLP(w.b, v)
	}
}

func (w *fieldWriter) count(n int) int {
	w.b = binary.AppendUvarint(w.b, uint64(n+1))
	return n
}

func (w *fieldWriter) reading() bool { return false }

func (w *fieldWriter) more() bool { return true }

// fieldReader reads fields from b; after the first error it reads zero
// values and keeps the error.
type fieldReader struct {
	b   []byte
	err error
}

// fail records a decoding error.
func (r *fieldReader) fail() { r.err, r.b = errCorrupt, nil }

// uvarint reads one uvarint.
func (r *fieldReader) uvarint() uint64 {
	v, rest, ok := readUvarint(r.b)
	if !ok {
		r.fail()
		return 0
	}
	r.b = rest
	return v
}

// bytes reads n bytes, aliasing the input.
func (r *fieldReader) bytes(n uint64) []byte {
	if uint64(len(r.b)) < n {
		r.fail()
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// size reads a count or length of at most len(r.b) elements of at least
// one byte each: the presence marker folded in, -1 for nil.
func (r *fieldReader) size() int {
	v := r.uvarint()
	if v == 0 {
		return -1
	}
	if v-1 > uint64(len(r.b)) {
		r.fail()
		return -1
	}
	return int(v - 1)
}

func (r *fieldReader) str(s *string) { *s = string(r.bytes(r.uvarint())) }

func (r *fieldReader) i64(v *int64) {
	x, rest, ok := readVarint(r.b)
	if !ok {
		r.fail()
		return
	}
	*v, r.b = x, rest
}

func (r *fieldReader) int(v *int) {
	var x int64
	r.i64(&x)
	*v = int(x)
}

func (r *fieldReader) bool(v *bool) {
	b := r.bytes(1)
	*v = len(b) == 1 && b[0] != 0
}

func (r *fieldReader) f64(v *float64) {
	f, rest, ok := readFloat(r.b)
	if !ok {
		r.fail()
		return
	}
	*v, r.b = f, rest
}

func (r *fieldReader) time(t *time.Time) {
	v := r.uvarint()
	if v == 0 {
		*t = time.Time{}
		return
	}
	*t = time.Unix(0, unzigzag(v-1)).UTC()
}

func (r *fieldReader) id(v *audit.ID) { copy(v[:], r.bytes(16)) }

func (r *fieldReader) raw(m *json.RawMessage) {
	n := r.size()
	if n < 0 {
		*m = nil
		return
	}
	*m = json.RawMessage(string(r.bytes(uint64(n))))
	*m = audit.ReadableBody(*m)
}

func (r *fieldReader) optF64(p **float64) {
	if b := r.bytes(1); len(b) == 1 && b[0] != 0 {
		*p = new(float64)
		r.f64(*p)
		return
	}
	*p = nil
}

func (r *fieldReader) optI64(p **int64) {
	if b := r.bytes(1); len(b) == 1 && b[0] != 0 {
		*p = new(int64)
		r.i64(*p)
		return
	}
	*p = nil
}

func (r *fieldReader) strMap(m *map[string]string) {
	n := r.size()
	if n < 0 {
		*m = nil
		return
	}
	*m = make(map[string]string, n)
	for range n {
		var k, v string
		r.str(&k)
		r.str(&v)
		if r.err != nil {
			return
		}
		(*m)[k] = v
	}
}

func (r *fieldReader) strs(s *[]string) {
	n := r.size()
	if n < 0 {
		*s = nil
		return
	}
	*s = make([]string, n)
	for i := range *s {
		r.str(&(*s)[i])
	}
}

func (r *fieldReader) count(int) int { return r.size() }

func (r *fieldReader) reading() bool { return true }

func (r *fieldReader) more() bool { return len(r.b) > 0 }

// zigzag maps a signed integer to an unsigned one, small magnitudes to
// small values.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// unzigzag inverts zigzag.
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

// entryFields walks the fields of an entry's head: everything but the
// bodies (see Data.WithoutBodies), which are stored apart. Data is
// present or nil.
func entryFields(f fields, e *audit.Entry) {
	f.str(&e.RequestID)
	f.str(&e.SessionID)
	f.str(&e.WorkflowVersionID)
	f.time(&e.Timestamp)
	f.str(&e.Method)
	f.str(&e.Path)
	f.int(&e.StatusCode)
	f.i64(&e.DurationNs)
	f.bool(&e.Stream)
	f.bool(&e.AliasUsed)
	f.str(&e.AuthKeyID)
	f.str(&e.AuthMethod)
	f.str(&e.PrincipalID)
	f.str(&e.ClientIP)
	f.bool(&e.BodiesOmitted)
	f.bool(&e.ConversationPayload)
	f.str(&e.CacheType)
	f.str(&e.ErrorType)
	f.str(&e.Provider)
	f.str(&e.ProviderName)
	f.str(&e.RequestedModel)
	f.str(&e.ResolvedModel)
	f.str(&e.UserPath)
	u := &e.Usage
	tokenFields(f, &u.Usage)
	f.i64(&u.UncachedInputTokens)
	f.f64(&u.CachedInputRatio)
	f.i64(&u.Entries)
	f.i64(&u.EstimatedCachedCharacters)
	f.i64(&u.RewriteTokensSaved)
	f.f64(&u.RewriteCostSaved)
	present := e.Data != nil
	f.bool(&present)
	if !present {
		e.Data = nil
		return
	}
	if f.reading() {
		e.Data = new(audit.Data)
	}
	dataFields(f, e.Data)
}

// dataFields walks an entry's data without its bodies.
func dataFields(f fields, d *audit.Data) {
	f.str(&d.APIKeyHash)
	if n := f.count(lenOrNil(d.Attempts)); f.reading() && n >= 0 {
		d.Attempts = make([]audit.Attempt, n)
	}
	for i := range d.Attempts {
		attemptFields(f, &d.Attempts[i])
	}
	f.str(&d.ErrorCode)
	f.str(&d.ErrorMessage)
	f.str(&d.EventType)
	failover := d.Failover != nil
	f.bool(&failover)
	if failover {
		if f.reading() {
			d.Failover = new(audit.Failover)
		}
		f.str(&d.Failover.TargetModel)
	}
	f.strs(&d.Labels)
	f.optI64(&d.MaxTokens)
	f.bool(&d.RequestBodyTooBigToHandle)
	f.strMap(&d.RequestHeaders)
	if n := f.count(lenOrNil(d.RequestRevisions)); f.reading() && n >= 0 {
		d.RequestRevisions = make([]audit.Revision, n)
	}
	for i := range d.RequestRevisions {
		revisionFields(f, &d.RequestRevisions[i])
	}
	f.bool(&d.ResponseBodyTooBigToHandle)
	f.strMap(&d.ResponseHeaders)
	f.optF64(&d.Temperature)
	f.str(&d.UserAgent)
	w := &d.WorkflowFeatures
	for _, b := range [...]*bool{&w.Audit, &w.Budget, &w.Cache, &w.Failover, &w.Guardrails, &w.Usage} {
		f.bool(b)
	}
}

// lenOrNil is len(s), or -1 for a nil slice.
func lenOrNil[T any](s []T) int {
	if s == nil {
		return -1
	}
	return len(s)
}

// attemptFields walks an attempt without its response body.
func attemptFields(f fields, a *audit.Attempt) {
	f.i64(&a.DurationNs)
	f.str(&a.ErrorCode)
	f.str(&a.ErrorMessage)
	f.str(&a.ErrorType)
	f.str(&a.Kind)
	f.str(&a.Model)
	f.str(&a.ProviderName)
	f.str(&a.ProviderType)
	f.strMap(&a.ResponseHeaders)
	f.int(&a.Seq)
	f.time(&a.StartedAt)
	f.int(&a.StatusCode)
	f.bool(&a.Success)
}

// revisionFields walks a revision without its body.
func revisionFields(f fields, r *audit.Revision) {
	f.i64(&r.BytesAfter)
	f.i64(&r.BytesBefore)
	f.raw(&r.Detail)
	f.bool(&r.NoChange)
	f.str(&r.Rewriter)
	f.int(&r.Seq)
	f.i64(&r.TokensSaved)
}
