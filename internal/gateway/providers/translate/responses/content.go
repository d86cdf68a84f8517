package responses

import (
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// writeUserContent writes a user message's content. A string, or an array
// holding a single text part, becomes a plain string (which every
// OpenAI-compatible upstream accepts); other arrays become chat content
// parts.
func writeUserContent(w *translate.Writer, content gjson.Result, p translate.Path) error {
	if content.Type == gjson.String {
		w.Raw(content.Raw)
		return nil
	}
	var first object
	n := 0
	content.ForEach(func(_, part gjson.Result) bool {
		if n == 0 {
			first = readObject(part)
		}
		n++
		return n < 2
	})
	if n == 1 {
		if t := first.typ.Str; t == "input_text" || t == "output_text" {
			if first.text.Type != gjson.String {
				return translate.Invalid(p.At(0).Key("text"), "a string")
			}
			w.Raw(first.text.Raw)
			return nil
		}
	}
	w.Arr()
	j := 0
	var err error
	content.ForEach(func(_, v gjson.Result) bool {
		err = writeUserPart(w, readObject(v), p.At(j))
		j++
		return err == nil
	})
	if err != nil {
		return err
	}
	w.EndArr()
	return nil
}

// writeUserPart writes one content part of a user message.
func writeUserPart(w *translate.Writer, part object, pp translate.Path) error {
	switch part.typ.Str {
	case "input_text", "output_text":
		if part.text.Type != gjson.String {
			return translate.Invalid(pp.Key("text"), "a string")
		}
		w.Obj()
		w.Key("type")
		w.Str("text")
		w.Key("text")
		w.Raw(part.text.Raw)
		w.EndObj()
		return nil
	case "input_image":
		return writeImagePart(w, &part, pp)
	case "input_file":
		return writeFilePart(w, &part, pp)
	}
	return partError(&part, pp)
}

func writeImagePart(w *translate.Writer, part *object, p translate.Path) error {
	url := part.imageURL
	if url.Type != gjson.String || url.Str == "" {
		if id := part.fileID; id.Exists() && id.Type != gjson.Null {
			return translate.Refuse(p.Key("file_id"), "input_image with file_id is not supported for this model: files uploaded to OpenAI are not visible to other providers; send image_url (https or data: URL)")
		}
		return translate.Missing(p.Key("image_url"))
	}
	w.Obj()
	w.Key("type")
	w.Str("image_url")
	w.Key("image_url")
	w.Obj()
	w.Key("url")
	w.Raw(url.Raw)
	if d := part.detail; d.Type == gjson.String {
		w.Key("detail")
		w.Raw(d.Raw)
	}
	w.EndObj()
	w.EndObj()
	return nil
}

func writeFilePart(w *translate.Writer, part *object, p translate.Path) error {
	data := part.fileData
	if data.Type != gjson.String || data.Str == "" {
		for _, f := range [...]struct {
			name string
			v    gjson.Result
		}{{"file_id", part.fileID}, {"file_url", part.fileURL}} {
			if f.v.Exists() && f.v.Type != gjson.Null {
				return translate.Refuse(p.Key(f.name), "input_file with "+f.name+" is not supported for this model; send the file inline as file_data (a base64 data: URL) with filename")
			}
		}
		return translate.Missing(p.Key("file_data"))
	}
	w.Obj()
	w.Key("type")
	w.Str("file")
	w.Key("file")
	w.Obj()
	w.Key("file_data")
	w.Raw(data.Raw)
	if name := part.filename; name.Type == gjson.String {
		w.Key("filename")
		w.Raw(name.Raw)
	}
	w.EndObj()
	w.EndObj()
	return nil
}

func partError(part *object, p translate.Path) error {
	typ := part.typ
	if !typ.Exists() {
		return translate.Missing(p.Key("type"))
	}
	return translate.Refuse(p.Key("type"), "content part type '"+typ.String()+"' is not supported here")
}

// writeTextContent writes the content of a system or assistant message as a
// string: Chat upstreams differ in accepting part arrays there, and these
// roles carry only text. Text parts are joined without a separator, as the
// model sees consecutive parts. For an assistant message, refusal parts are
// skipped here (they go to the refusal field) and empty text becomes null.
func writeTextContent(w *translate.Writer, content gjson.Result, p translate.Path, assistant bool) error {
	if content.Type == gjson.String {
		if assistant && content.Str == "" {
			w.Null()
			return nil
		}
		w.Raw(content.Raw)
		return nil
	}
	var text []byte
	j := 0
	var err error
	content.ForEach(func(_, v gjson.Result) bool {
		pp := p.At(j)
		j++
		part := readObject(v)
		switch part.typ.Str {
		case "input_text", "output_text":
			t := part.text
			if t.Type != gjson.String {
				err = translate.Invalid(pp.Key("text"), "a string")
				return false
			}
			text = translate.AppendInner(text, t)
		case "refusal":
			if !assistant {
				err = partError(&part, pp)
			}
		case "input_image", "input_file":
			err = translate.Refuse(pp.Key("type"), "only text content is supported in system, developer and assistant messages")
		default:
			err = partError(&part, pp)
		}
		return err == nil
	})
	if err != nil {
		return err
	}
	if assistant && len(text) == 0 {
		w.Null()
		return nil
	}
	w.Escaped(text)
	return nil
}

// joinRefusals returns the escaped concatenation of the refusal parts
// of content, or nil when there is none.
func joinRefusals(content gjson.Result) []byte {
	var out []byte
	content.ForEach(func(_, v gjson.Result) bool {
		if part := readObject(v); part.typ.Str == "refusal" {
			if out == nil {
				out = []byte{}
			}
			out = translate.AppendInner(out, part.refusal)
		}
		return true
	})
	return out
}

// object holds the fields of an input item or content part that the
// translation reads, collected in one pass over the object (gjson's Get
// would scan the object once per field).
type object struct {
	typ, role, content, callID, name, arguments, output gjson.Result
	text, refusal, imageURL, fileID, fileURL, fileData  gjson.Result
	filename, detail                                    gjson.Result
	description, parameters, strict                     gjson.Result // function tools
	namespace, tools                                    gjson.Result // namespaced calls, namespace tools
}

func readObject(v gjson.Result) (o object) {
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
		case "namespace":
			o.namespace = v
		case "tools":
			o.tools = v
		}
		return true
	})
	return o
}
