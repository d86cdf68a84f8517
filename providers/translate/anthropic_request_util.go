package translate

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// parseRequestObject checks that body is one JSON object and parses it
// without copying it (see parseBorrowed): the translators copy what they
// keep into their output before returning.
func parseRequestObject(body []byte) (gjson.Result, error) {
	if !gjson.ValidBytes(body) {
		return gjson.Result{}, &Error{Message: "request body is not valid JSON"}
	}
	root := parseBorrowed(body)
	if !root.IsObject() {
		return gjson.Result{}, &Error{Message: "request body must be a JSON object"}
	}
	return root, nil
}

// cannotExpress is the Error for a field the target API cannot express.
func cannotExpress(p jpath, target, why string) *Error {
	param := p.String()
	msg := param + " is not supported when the model is served by " + target
	if why != "" {
		msg += ": " + why
	}
	return &Error{Message: msg, Param: param}
}

// invalidParam is the Error for a field with a value of the wrong shape.
func invalidParam(p jpath, want string) *Error {
	param := p.String()
	return &Error{Message: "invalid value for " + param + ": expected " + want, Param: param}
}

// positiveInt reads a positive integer field.
func positiveInt(v gjson.Result, param string) (int64, error) {
	if v.Type != gjson.Number || v.Num != float64(int64(v.Num)) || v.Num < 1 {
		return 0, invalidParam(reqPath(param), "a positive integer")
	}
	return int64(v.Num), nil
}

// splitDataURL splits a "data:MEDIA[;params];base64,DATA" URL. ok is false when
// url is not a base64 data URL.
func splitDataURL(url string) (media, data string, ok bool) {
	rest, found := strings.CutPrefix(url, "data:")
	if !found {
		return "", "", false
	}
	header, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	params := strings.Split(header, ";")
	if len(params) < 2 || params[len(params)-1] != "base64" {
		return "", "", false
	}
	media = strings.ToLower(strings.TrimSpace(params[0]))
	if media == "image/jpg" {
		media = "image/jpeg"
	}
	return media, data, true
}

// stringOrTextParts collects the text of a content field that is either a
// string or an array of {"type":"text","text":...} parts, calling fn with
// each text value (as a gjson string) and the part itself (the zero Result
// for a plain string). It rejects other part types.
func stringOrTextParts(content gjson.Result, param jpath, fn func(text, part gjson.Result)) error {
	switch {
	case content.Type == gjson.String:
		fn(content, gjson.Result{})
		return nil
	case content.IsArray():
		var err error
		i := 0
		content.ForEach(func(_, part gjson.Result) bool {
			p := param.at(i)
			i++
			if t := part.Get("type").Str; t != "text" {
				err = &Error{Message: "content part type " + strconv.Quote(t) +
					" is not allowed here; only text parts are", Param: p.key("type").String()}
				return false
			}
			text := part.Get("text")
			if text.Type != gjson.String {
				err = invalidParam(p.key("text"), "a string")
				return false
			}
			fn(text, part)
			return true
		})
		return err
	default:
		return invalidParam(param, "a string or an array of text parts")
	}
}

// jpath is a JSON path into the client's request, for Error.Param. It is a
// value built without allocating on the success path; String renders it
// when an error needs it.
type jpath struct {
	segs [8]jseg
	n    int
}

// jseg is one path segment: a member name, or an index when name is "".
type jseg struct {
	name string
	idx  int
}

// reqPath starts a path at the top-level member name.
func reqPath(name string) jpath { return jpath{}.key(name) }

// key extends the path by a member name.
func (p jpath) key(name string) jpath {
	if p.n < len(p.segs) {
		p.segs[p.n] = jseg{name: name}
		p.n++
	}
	return p
}

// at extends the path by an array index.
func (p jpath) at(i int) jpath {
	if p.n < len(p.segs) {
		p.segs[p.n] = jseg{idx: i}
		p.n++
	}
	return p
}

// String renders the path as messages[2].content[0].type.
func (p jpath) String() string {
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

// hasElements reports whether the array or object r has any member,
// without building a slice or map of them.
func hasElements(r gjson.Result) bool {
	found := false
	r.ForEach(func(_, _ gjson.Result) bool {
		found = true
		return false
	})
	return found
}

// checkModelAndMessages checks the two fields every chat or messages
// request needs: a non-empty model string and a messages array.
func checkModelAndMessages(model, messages gjson.Result) error {
	if model.Type != gjson.String || model.Str == "" {
		return invalidParam(reqPath("model"), "a non-empty string")
	}
	if !messages.IsArray() {
		return invalidParam(reqPath("messages"), "an array of messages")
	}
	return nil
}
