package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func ids(items []json.RawMessage) string {
	var s []string
	for _, it := range items {
		s = append(s, gjson.GetBytes(it, "id").Str)
	}
	return strings.Join(s, ",")
}

func TestInputItemsNormalizes(t *testing.T) {
	r := &Record{ID: "resp_abc", Input: []byte(`[{"role":"user","content":"a"},{"type":"function_call_output","call_id":"c","output":"x"},{"id":"own","type":"message","role":"assistant","content":"b"}, 7]`)}
	items := r.InputItems()
	if got := ids(items); got != "msg_abc_in0,fco_abc_in1,own" {
		t.Fatalf("ids %s", got)
	}
	if ids(r.InputItems()) != ids(items) {
		t.Fatal("ids differ between reads")
	}
	if c := gjson.GetBytes(items[0], "content.0"); c.Get("type").Str != "input_text" || c.Get("text").Str != "a" ||
		gjson.GetBytes(items[0], "type").Str != "message" {
		t.Fatalf("user item %s", items[0])
	}
	if gjson.GetBytes(items[2], "content.0.type").Str != "output_text" {
		t.Fatalf("assistant item %s", items[2])
	}
	s := (&Record{ID: "resp_x", Input: []byte(`"hello"`)}).InputItems()
	if len(s) != 1 || gjson.GetBytes(s[0], "content.0.text").Str != "hello" || gjson.GetBytes(s[0], "role").Str != "user" {
		t.Fatalf("string input %s", s)
	}
}

func TestPageItems(t *testing.T) {
	var items []json.RawMessage
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		items = append(items, json.RawMessage(`{"id":"`+id+`"}`))
	}
	for _, c := range []struct {
		after string
		limit int
		desc  bool
		want  string
		more  bool
	}{
		{"", 2, false, "a,b", true},
		{"b", 2, false, "c,d", true},
		{"d", 2, false, "e", false},
		{"", 2, true, "e,d", true},
		{"b", 20, true, "a", false},
		{"zz", 20, true, "", false},
	} {
		p := PageItems(items, c.after, c.limit, c.desc)
		if ids(p.Data) != c.want || p.HasMore != c.more {
			t.Errorf("after %q limit %d desc %v: %s more %v", c.after, c.limit, c.desc, ids(p.Data), p.HasMore)
		}
		if c.want != "" && (*p.FirstID != strings.Split(c.want, ",")[0] || p.LastID == nil) {
			t.Errorf("first/last ids %v %v", *p.FirstID, *p.LastID)
		}
	}
}
