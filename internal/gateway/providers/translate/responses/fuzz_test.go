package responses

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
	"github.com/modelgate/modelgate/internal/testkit/ssecheck"
)

// fuzzTargets are the Chat Completions upstreams a request is fitted to.
var fuzzTargets = []translate.ChatTarget{{}, {LegacyMaxTokens: true, NoStreamOptions: true}}

// mustBeObject fails when a translator that reported no error wrote
// something other than one JSON object.
func mustBeObject(t *testing.T, what string, out []byte, err error) {
	t.Helper()
	if err == nil && (!json.Valid(out) || !gjson.ParseBytes(out).IsObject()) {
		t.Fatalf("%s wrote invalid JSON: %q", what, out)
	}
}

// FuzzRequests feeds arbitrary bytes to both Responses request
// translators, and to both answer translators as the upstream's answer
// and, when it is a request they accept, as the client's request whose
// settings the answer echoes: none may panic, and what they write without
// an error is one JSON object.
func FuzzRequests(f *testing.F) {
	f.Add(benchRequest)
	f.Add(fixtures.Must(f, "openai", "responses.json"))
	for _, name := range fixtures.Glob("openai", "chat*.json") {
		f.Add(fixtures.Must(f, "openai", name))
	}
	for _, name := range fixtures.Glob("anthropic", "*.json") {
		f.Add(fixtures.Must(f, "anthropic", name))
	}
	// The recorded Responses answer's output as the input of a new turn.
	out := gjson.GetBytes(fixtures.Must(f, "openai", "responses.json"), "output").Raw
	f.Add([]byte(`{"model":"m","instructions":"Be brief.","input":` + out + `,"max_output_tokens":64}`))
	chat := fixtures.Must(f, "openai", "chat_with_tools.json")
	messages := fixtures.Must(f, "anthropic", "messages_with_tools.json")
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, target := range fuzzTargets {
			out, err := ResponsesToChatRequest(b, target)
			mustBeObject(t, "ResponsesToChatRequest", out, err)
		}
		out, err := ResponsesToMessagesRequest(b, 4096)
		mustBeObject(t, "ResponsesToMessagesRequest", out, err)
		out, _, err = ChatToResponsesResponse(b, benchRequest)
		mustBeObject(t, "ChatToResponsesResponse", out, err)
		out, _, err = MessagesToResponsesResponse(b, benchRequest, "alias")
		mustBeObject(t, "MessagesToResponsesResponse", out, err)
		if _, err := ResponsesToChatRequest(b, translate.ChatTarget{}); err == nil {
			out, _, err = ChatToResponsesResponse(chat, b)
			mustBeObject(t, "ChatToResponsesResponse (request echoed)", out, err)
			out, _, err = MessagesToResponsesResponse(messages, b, "")
			mustBeObject(t, "MessagesToResponsesResponse (request echoed)", out, err)
		}
	})
}

// FuzzStreams splits arbitrary bytes into server-sent events and feeds
// them to both Responses stream converters (from Chat Completions and,
// chained, from Messages), ending with Finish, or with Abort when the
// input's length is odd: nothing may panic, and the output is a
// well-framed Responses stream that ends with its closing event or
// response.failed, with nothing after it.
func FuzzStreams(f *testing.F) {
	for _, s := range [][]byte{
		fixtures.Must(f, "anthropic", "messages_stream.txt"),
		fixtures.Must(f, "openai", "chat_completion_stream.txt"),
		fixtures.Must(f, "gemini", "chat_completion_stream.txt"),
	} {
		f.Add(s)
		f.Add(s[:len(s)/2])
		if i := bytes.Index(s, []byte("\n\n")); i >= 0 {
			f.Add(append(append(append([]byte(nil), s[:i+2]...), "data: keep-alive\n\n"...), s[i+2:]...))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		events := sse.Split(b)
		abort := len(b)%2 == 1
		for _, s := range []translate.Stream{NewChatToResponsesStream(benchRequest), NewMessagesToResponsesStream("alias", benchRequest)} {
			var out []byte
			for _, ev := range events {
				o, _ := s.Feed(ev)
				out = append(out, o...)
			}
			if abort {
				out = append(out, s.Abort("upstream_read_failed", "reading the upstream stream failed")...)
			}
			out = append(out, s.Finish()...)
			out = append(out, s.Abort("upstream_read_failed", "late")...)
			evs, err := ssecheck.Parse(out)
			if err != nil {
				t.Fatal(err)
			}
			if ssecheck.Ending(ssecheck.Responses, evs) == "" {
				t.Fatalf("the stream just stops:\n%s", out)
			}
			for i := range evs[:len(evs)-1] {
				if ssecheck.Ending(ssecheck.Responses, evs[:i+1]) != "" {
					t.Fatalf("events after the end (event %d of %d):\n%s", i, len(evs), out)
				}
			}
		}
	})
}
