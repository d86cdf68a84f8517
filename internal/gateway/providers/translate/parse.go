package translate

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// ParseBorrowed parses b without copying it. The results point into b: use
// them only while b is unchanged, and copy any string that must outlive
// the call (stream converters do not own the event data they are fed).
func ParseBorrowed(b []byte) gjson.Result {
	if len(b) == 0 {
		return gjson.Result{}
	}
	return gjson.Parse(unsafe.String(unsafe.SliceData(b), len(b)))
}

// ParseRequest checks that body is one JSON object and parses it without
// copying it (see ParseBorrowed): a translator copies what it keeps into
// its output before returning. A body that is not a JSON object is an
// *Error with code CodeInvalidJSON.
func ParseRequest(body []byte) (gjson.Result, error) {
	if !gjson.ValidBytes(body) {
		return gjson.Result{}, &Error{Message: "request body is not valid JSON", Code: CodeInvalidJSON}
	}
	root := ParseBorrowed(body)
	if !root.IsObject() {
		return gjson.Result{}, &Error{Message: "request body must be a JSON object", Code: CodeInvalidJSON}
	}
	return root, nil
}

// IsSet reports whether a request field was given with a non-null value.
func IsSet(r gjson.Result) bool {
	return r.Exists() && r.Type != gjson.Null
}

// NonNull returns v, or the zero Result (a missing value) when v is null.
func NonNull(v gjson.Result) gjson.Result {
	if v.Type == gjson.Null {
		return gjson.Result{}
	}
	return v
}

// HasElements reports whether the array or object r has any member,
// without building a slice or map of them.
func HasElements(r gjson.Result) bool {
	found := false
	r.ForEach(func(_, _ gjson.Result) bool {
		found = true
		return false
	})
	return found
}

// CompactJSON returns the JSON value raw without insignificant whitespace,
// returning raw itself when it has none.
func CompactJSON(raw string) string {
	var out []byte
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inStr {
			if c == '\\' && i+1 < len(raw) {
				if out != nil {
					out = append(out, c, raw[i+1])
				}
				i++
				continue
			}
			if c == '"' {
				inStr = false
			}
		} else {
			switch c {
			case '"':
				inStr = true
			case ' ', '\t', '\n', '\r':
				if out == nil {
					out = make([]byte, 0, len(raw))
					out = append(out, raw[:i]...)
				}
				continue
			}
		}
		if out != nil {
			out = append(out, c)
		}
	}
	if out == nil {
		return raw
	}
	return string(out)
}

// Path is the JSON path of a field in the client's request, the Param of
// an *Error: messages[2].content[0].type. It is a value built without
// allocating, so translators carry it along on the success path; String
// renders it only when an error needs it. A path holds at most eight
// segments; further ones are dropped.
type Path struct {
	segs [8]pathSeg
	n    int
}

// pathSeg is one segment: a member name, or an index when name is "".
type pathSeg struct {
	name string
	idx  int
}

// Param starts a path at the top-level member name.
func Param(name string) Path { return Path{}.Key(name) }

// Key extends the path by a member name. A name may hold dots
// ("function.name") to name a nested member in one step.
func (p Path) Key(name string) Path {
	if p.n < len(p.segs) {
		p.segs[p.n] = pathSeg{name: name}
		p.n++
	}
	return p
}

// At extends the path by an array index.
func (p Path) At(i int) Path {
	if p.n < len(p.segs) {
		p.segs[p.n] = pathSeg{idx: i}
		p.n++
	}
	return p
}

// String renders the path: member names joined by dots, indexes in
// brackets.
func (p Path) String() string {
	var b strings.Builder
	for _, s := range p.segs[:p.n] {
		if s.name == "" {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(s.idx))
			b.WriteByte(']')
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.name)
	}
	return b.String()
}
