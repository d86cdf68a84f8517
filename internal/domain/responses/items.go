package responses

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// InputItems returns the record's input items in order, as the
// input_items list shows them: a string input as one user message, each
// item with its type and an id. Items the client sent without an id get
// one made from the response id and the item's index, so the same item
// has the same id on every read (the cursor of the list).
func (r *Record) InputItems() []json.RawMessage {
	in := gjson.ParseBytes(r.Input)
	switch {
	case in.Type == gjson.String:
		item, _ := json.Marshal(map[string]any{
			"type": "message", "role": "user", "status": "completed",
			"content": []map[string]string{{"type": "input_text", "text": in.Str}},
		})
		return []json.RawMessage{r.withID(item, 0, "msg_")}
	case !in.IsArray():
		return nil
	}
	var out []json.RawMessage
	for i, it := range in.Array() {
		if !it.IsObject() {
			continue
		}
		item := []byte(it.Raw)
		typ := it.Get("type").Str
		if typ == "" {
			item, _ = sjson.SetBytes(item, "type", "message")
			typ = "message"
		}
		if c := it.Get("content"); typ == "message" && c.Type == gjson.String {
			part := "input_text"
			if it.Get("role").Str == "assistant" {
				part = "output_text"
			}
			item, _ = sjson.SetBytes(item, "content", []map[string]string{{"type": part, "text": c.Str}})
		}
		out = append(out, r.withID(item, i, idPrefix(typ)))
	}
	return out
}

// OutputItems returns the items of the stored response's output.
func (r *Record) OutputItems() []json.RawMessage {
	var out []json.RawMessage
	for _, it := range gjson.GetBytes(r.Response, "output").Array() {
		if it.IsObject() {
			out = append(out, json.RawMessage(it.Raw))
		}
	}
	return out
}

// withID returns item with an id: its own, or one made of prefix, the
// response id's random part and index.
func (r *Record) withID(item []byte, index int, prefix string) json.RawMessage {
	if gjson.GetBytes(item, "id").Type == gjson.String {
		return item
	}
	id := prefix + strings.TrimPrefix(r.ID, "resp_") + "_in" + strconv.Itoa(index)
	out, err := sjson.SetBytes(item, "id", id)
	if err != nil {
		return item
	}
	return out
}

// idPrefix is the id prefix of an item of type typ, as OpenAI names them.
func idPrefix(typ string) string {
	switch typ {
	case "message":
		return "msg_"
	case "function_call":
		return "fc_"
	case "function_call_output":
		return "fco_"
	case "reasoning":
		return "rs_"
	}
	return "item_"
}
