package audit

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDecodeEntryNullBodies(t *testing.T) {
	e := &Entry{ID: NewID(time.Unix(1700000000, 0)), Data: &Data{
		RequestBody:      json.RawMessage(`{"model":"m"}`),
		Attempts:         []Attempt{{Seq: 1}, {Seq: 2, ResponseBody: json.RawMessage(`"x"`)}},
		RequestRevisions: []Revision{{Seq: 1}},
	}}
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeEntry(b)
	if err != nil {
		t.Fatal(err)
	}
	d := got.Data
	if string(d.RequestBody) != `{"model":"m"}` || d.ResponseBody != nil {
		t.Errorf("bodies %q %q", d.RequestBody, d.ResponseBody)
	}
	if d.Attempts[0].ResponseBody != nil || string(d.Attempts[1].ResponseBody) != `"x"` {
		t.Errorf("attempt bodies %q %q", d.Attempts[0].ResponseBody, d.Attempts[1].ResponseBody)
	}
	if d.RequestRevisions[0].Body != nil || d.RequestRevisions[0].Detail != nil {
		t.Errorf("revision %q %q", d.RequestRevisions[0].Body, d.RequestRevisions[0].Detail)
	}
	if _, err := DecodeEntry([]byte(`{"id":`)); err == nil {
		t.Error("truncated entry decoded")
	}
}
