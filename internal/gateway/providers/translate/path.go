package translate

import (
	"strconv"
	"strings"
)

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
