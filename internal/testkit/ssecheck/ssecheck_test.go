package ssecheck

import "testing"

func TestParse(t *testing.T) {
	evs, err := Parse([]byte("event: a\ndata: {\"x\":1}\n\ndata: [DONE]\n\n"))
	if err != nil || len(evs) != 2 || evs[0].Name != "a" || string(evs[1].Data) != "[DONE]" {
		t.Fatalf("%v %+v", err, evs)
	}
	for _, bad := range []string{
		"data: {}\n",                   // no blank line at the end
		"data: {\n\n",                  // not JSON
		"event: a\n\n",                 // no data
		"data: {}\ndata: {}\n\n",       // two data lines
		": comment\ndata: {}\n\n",      // a line of another kind
		"event: \ndata: {}\n\n",        // an empty name
		"data: {}\n\n\ndata: {}\n\n",   // a stray blank line
		"data: keep-alive\n\n",         // not JSON
		"event: a\r\ndata: {}\r\n\r\n", // CRLF is not what the gateway writes
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

func TestEnding(t *testing.T) {
	for _, c := range []struct {
		s    Shape
		out  string
		want string
	}{
		{Messages, "event: message_stop\ndata: {}\n\n", "complete"},
		{Messages, "event: error\ndata: {\"type\":\"error\"}\n\n", "error"},
		{Messages, "event: content_block_delta\ndata: {}\n\n", ""},
		{Chat, "data: {}\n\ndata: [DONE]\n\n", "complete"},
		{Chat, "data: {\"error\":{\"message\":\"m\"}}\n\n", "error"},
		{Chat, "data: {\"choices\":[]}\n\n", ""},
		{Responses, "event: response.failed\ndata: {}\n\n", "error"},
		{Responses, "event: response.incomplete\ndata: {}\n\n", "complete"},
		{Responses, "event: response.output_text.delta\ndata: {}\n\n", ""},
		{Responses, "", ""},
	} {
		evs, err := Parse([]byte(c.out))
		if err != nil {
			t.Fatal(err)
		}
		if got := Ending(c.s, evs); got != c.want {
			t.Errorf("%q: %q, want %q", c.out, got, c.want)
		}
	}
}
