package apierr

import (
	"encoding/json"
	"testing"
)

func TestMessageBody(t *testing.T) {
	for _, c := range []struct{ typ, msg, want string }{
		{TypeProvider, "no answer", `{"error":{"type":"provider_error","message":"no answer"}}`},
		{TypeInvalidRequest, "", `{"error":{"type":"invalid_request_error","message":""}}`},
		{TypeProvider, "a < b", `{"error":{"type":"provider_error","message":"a < b"}}`},
		{TypeProvider, "<\"x\">", `{"error":{"type":"provider_error","message":"\u003c\"x\"\u003e"}}`},
		{TypeProvider, "bad \xff", `{"error":{"type":"provider_error","message":"bad \ufffd"}}`},
	} {
		got := MessageBody(c.typ, c.msg)
		if string(got) != c.want {
			t.Errorf("MessageBody(%q, %q) = %s, want %s", c.typ, c.msg, got, c.want)
		}
		// It is the gateway error shape: it decodes as the error object.
		var e struct {
			Error *Error `json:"error"`
		}
		if err := json.Unmarshal(got, &e); err != nil || e.Error == nil || e.Error.Type != c.typ {
			t.Errorf("MessageBody(%q, %q) does not decode as the gateway shape: %+v, %v", c.typ, c.msg, e.Error, err)
		}
	}
	msg := "quote \" backslash \\ newline \n tab \t café"
	var e struct {
		Error *Error `json:"error"`
	}
	if err := json.Unmarshal(MessageBody(TypeProvider, msg), &e); err != nil || e.Error.Message != msg {
		t.Errorf("the message does not round-trip: %+v, %v", e.Error, err)
	}
}
