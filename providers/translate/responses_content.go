package translate

import (
	"github.com/tidwall/gjson"
)

// respUserContent writes a user message's content. A string, or an array
// holding a single text part, becomes a plain string (which every
// OpenAI-compatible upstream accepts); other arrays become chat content
// parts.
func respUserContent(w *respWriter, content gjson.Result, p string) error {
	if content.Type == gjson.String {
		w.raw(content.Raw)
		return nil
	}
	var first respObj
	n := 0
	content.ForEach(func(_, part gjson.Result) bool {
		if n == 0 {
			first = respReadObj(part)
		}
		n++
		return n < 2
	})
	if n == 1 {
		if t := first.typ.Str; t == "input_text" || t == "output_text" {
			if first.text.Type != gjson.String {
				return respTypeError(respIndex(p, 0)+".text", "a string")
			}
			w.raw(first.text.Raw)
			return nil
		}
	}
	w.arr()
	j := 0
	var err error
	content.ForEach(func(_, v gjson.Result) bool {
		err = respUserPart(w, respReadObj(v), respIndex(p, j))
		j++
		return err == nil
	})
	if err != nil {
		return err
	}
	w.endArr()
	return nil
}

// respUserPart writes one content part of a user message.
func respUserPart(w *respWriter, part respObj, pp string) error {
	switch part.typ.Str {
	case "input_text", "output_text":
		if part.text.Type != gjson.String {
			return respTypeError(pp+".text", "a string")
		}
		w.obj()
		w.key("type")
		w.str("text")
		w.key("text")
		w.raw(part.text.Raw)
		w.endObj()
		return nil
	case "input_image":
		return respImagePart(w, &part, pp)
	case "input_file":
		return respFilePart(w, &part, pp)
	}
	return respPartError(&part, pp)
}

func respImagePart(w *respWriter, part *respObj, p string) error {
	url := part.imageURL
	if url.Type != gjson.String || url.Str == "" {
		if id := part.fileID; id.Exists() && id.Type != gjson.Null {
			return &Error{Message: "input_image with file_id is not supported for this model: files uploaded to OpenAI are not visible to other providers; send image_url (https or data: URL)", Param: p + ".file_id"}
		}
		return &Error{Message: "Missing required parameter: '" + p + ".image_url'.", Param: p + ".image_url"}
	}
	w.obj()
	w.key("type")
	w.str("image_url")
	w.key("image_url")
	w.obj()
	w.key("url")
	w.raw(url.Raw)
	if d := part.detail; d.Type == gjson.String {
		w.key("detail")
		w.raw(d.Raw)
	}
	w.endObj()
	w.endObj()
	return nil
}

func respFilePart(w *respWriter, part *respObj, p string) error {
	data := part.fileData
	if data.Type != gjson.String || data.Str == "" {
		for _, f := range [...]struct {
			name string
			v    gjson.Result
		}{{"file_id", part.fileID}, {"file_url", part.fileURL}} {
			if f.v.Exists() && f.v.Type != gjson.Null {
				return &Error{Message: "input_file with " + f.name + " is not supported for this model; send the file inline as file_data (a base64 data: URL) with filename", Param: p + "." + f.name}
			}
		}
		return &Error{Message: "Missing required parameter: '" + p + ".file_data'.", Param: p + ".file_data"}
	}
	w.obj()
	w.key("type")
	w.str("file")
	w.key("file")
	w.obj()
	w.key("file_data")
	w.raw(data.Raw)
	if name := part.filename; name.Type == gjson.String {
		w.key("filename")
		w.raw(name.Raw)
	}
	w.endObj()
	w.endObj()
	return nil
}

func respPartError(part *respObj, p string) error {
	typ := part.typ
	if !typ.Exists() {
		return &Error{Message: "Missing required parameter: '" + p + ".type'.", Param: p + ".type"}
	}
	return &Error{Message: "content part type '" + typ.String() + "' is not supported here", Param: p + ".type"}
}

// respTextContent writes the content of a system or assistant message as a
// string: Chat upstreams differ in accepting part arrays there, and these
// roles carry only text. Text parts are joined without a separator, as the
// model sees consecutive parts. For an assistant message, refusal parts are
// skipped here (they go to the refusal field) and empty text becomes null.
func respTextContent(w *respWriter, content gjson.Result, p string, assistant bool) error {
	if content.Type == gjson.String {
		if assistant && content.Str == "" {
			w.null()
			return nil
		}
		w.raw(content.Raw)
		return nil
	}
	var text []byte
	j := 0
	var err error
	content.ForEach(func(_, v gjson.Result) bool {
		pp := respIndex(p, j)
		j++
		part := respReadObj(v)
		switch part.typ.Str {
		case "input_text", "output_text":
			t := part.text
			if t.Type != gjson.String {
				err = respTypeError(pp+".text", "a string")
				return false
			}
			text = respInner(text, t)
		case "refusal":
			if !assistant {
				err = respPartError(&part, pp)
			}
		case "input_image", "input_file":
			err = &Error{Message: "only text content is supported in system, developer and assistant messages", Param: pp + ".type"}
		default:
			err = respPartError(&part, pp)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if assistant && len(text) == 0 {
		w.null()
		return nil
	}
	w.escaped(text)
	return nil
}

// respJoinRefusals returns the escaped concatenation of the refusal parts
// of content, or nil when there is none.
func respJoinRefusals(content gjson.Result) []byte {
	var out []byte
	content.ForEach(func(_, v gjson.Result) bool {
		if part := respReadObj(v); part.typ.Str == "refusal" {
			if out == nil {
				out = []byte{}
			}
			out = respInner(out, part.refusal)
		}
		return true
	})
	return out
}

// respObj holds the fields of an input item or content part that the
// translation reads, collected in one pass over the object (gjson's Get
// would scan the object once per field).
type respObj struct {
	typ, role, content, callID, name, arguments, output gjson.Result
	text, refusal, imageURL, fileID, fileURL, fileData  gjson.Result
	filename, detail                                    gjson.Result
	description, parameters, strict                     gjson.Result // function tools
}

func respReadObj(v gjson.Result) (o respObj) {
	v.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "type":
			o.typ = v
		case "role":
			o.role = v
		case "content":
			o.content = v
		case "call_id":
			o.callID = v
		case "name":
			o.name = v
		case "arguments":
			o.arguments = v
		case "output":
			o.output = v
		case "text":
			o.text = v
		case "refusal":
			o.refusal = v
		case "image_url":
			o.imageURL = v
		case "file_id":
			o.fileID = v
		case "file_url":
			o.fileURL = v
		case "file_data":
			o.fileData = v
		case "filename":
			o.filename = v
		case "detail":
			o.detail = v
		case "description":
			o.description = v
		case "parameters":
			o.parameters = v
		case "strict":
			o.strict = v
		}
		return true
	})
	return o
}
