package anthropic

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

// addRequestSeeds seeds f with requests of both shapes built around the
// recorded answers (each answer's message as the assistant's turn) and
// with the recorded answers themselves.
func addRequestSeeds(f *testing.F) {
	f.Add(anthBenchChat)
	if msgs, err := ChatToMessagesRequest(anthBenchChat, 4096); err == nil {
		f.Add(msgs)
	}
	for _, name := range fixtures.Glob("anthropic", "*.json") {
		resp := fixtures.Must(f, "anthropic", name)
		f.Add(resp)
		content := gjson.GetBytes(resp, "content").Raw
		f.Add([]byte(`{"model":"m","max_tokens":64,"system":"Be brief.","messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":` + content + `},{"role":"user","content":[{"type":"text","text":"go on"}]}]}`))
	}
	for _, fam := range []string{"openai", "groq", "gemini"} {
		for _, name := range fixtures.Glob(fam, "chat*.json") {
			resp := fixtures.Must(f, fam, name)
			f.Add(resp)
			msg := gjson.GetBytes(resp, "choices.0.message").Raw
			f.Add([]byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},` + msg + `]}`))
		}
	}
}

// mustBeJSON fails when a translator that reported no error wrote
// something other than one JSON value (an object when object is set).
func mustBeJSON(t *testing.T, what string, out []byte, err error, object bool) {
	t.Helper()
	if err != nil {
		return
	}
	if !json.Valid(out) || (object && !gjson.ParseBytes(out).IsObject()) {
		t.Fatalf("%s wrote invalid JSON: %q", what, out)
	}
}

// FuzzRequests feeds arbitrary bytes to both request translators (for each
// kind of Chat Completions upstream), the input-token estimate and both
// answer translators: none may panic, and what they write without an
// error is one JSON object.
func FuzzRequests(f *testing.F) {
	addRequestSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, target := range fuzzTargets {
			out, err := MessagesToChatRequest(b, target)
			mustBeJSON(t, "MessagesToChatRequest", out, err, true)
			samePartsAsBody(t, b, target, out, err)
		}
		out, err := ChatToMessagesRequest(b, 4096)
		mustBeJSON(t, "ChatToMessagesRequest", out, err, true)
		if n, err := EstimateMessagesInputTokens(b); err == nil && n < 0 {
			t.Fatalf("negative estimate %d", n)
		}
		out, _, err = ChatToMessagesResponse(b, "alias")
		mustBeJSON(t, "ChatToMessagesResponse", out, err, true)
		out, _, err = MessagesToChatResponse(b, "")
		mustBeJSON(t, "MessagesToChatResponse", out, err, true)
	})
}

// addStreamSeeds seeds f with the recorded streams, whole, cut in the
// middle and with a keep-alive line inside.
func addStreamSeeds(f *testing.F) {
	for _, s := range [][]byte{
		fixtures.Must(f, "anthropic", "messages_stream.txt"),
		fixtures.Must(f, "openai", "chat_completion_stream.txt"),
		fixtures.Must(f, "groq", "chat_completion_stream.txt"),
		fixtures.Must(f, "gemini", "chat_completion_stream.txt"),
	} {
		f.Add(s)
		f.Add(s[:len(s)/2])
		if i := bytes.Index(s, []byte("\n\n")); i >= 0 {
			f.Add(append(append(append([]byte(nil), s[:i+2]...), "data: keep-alive\n\n"...), s[i+2:]...))
		}
	}
}

// checkConverted checks a converter's whole output: well-framed, ended
// (by its closing event or an error event, after Finish or Abort), and
// nothing after the end.
func checkConverted(t *testing.T, shape ssecheck.Shape, out []byte) {
	t.Helper()
	evs, err := ssecheck.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if ssecheck.Ending(shape, evs) == "" {
		t.Fatalf("the stream just stops:\n%s", out)
	}
	for i := range evs[:len(evs)-1] {
		if ssecheck.Ending(shape, evs[:i+1]) != "" {
			t.Fatalf("events after the end (event %d of %d):\n%s", i, len(evs), out)
		}
	}
}

// FuzzStreams splits arbitrary bytes into server-sent events and feeds
// them to both stream converters, ending with Finish, or with Abort when
// the input's length is odd: nothing may panic, and the output is a
// well-framed stream of the client's shape that ends properly.
func FuzzStreams(f *testing.F) {
	addStreamSeeds(f)
	req, _ := ChatToMessagesRequest(anthBenchChat, 4096)
	f.Fuzz(func(t *testing.T, b []byte) {
		events := sse.Split(b)
		abort := len(b)%2 == 1
		run := func(s translate.Stream) []byte {
			var out []byte
			for _, ev := range events {
				o, _ := s.Feed(ev)
				out = append(out, o...)
			}
			if abort {
				out = append(out, s.Abort("upstream_read_failed", "reading the upstream stream failed")...)
			}
			out = append(out, s.Finish()...)
			return append(out, s.Abort("upstream_read_failed", "late")...)
		}
		checkConverted(t, ssecheck.Messages, run(NewChatToMessagesStream("alias", req)))
		checkConverted(t, ssecheck.Chat, run(NewMessagesToChatStream("", len(b)%3 == 0)))
	})
}
