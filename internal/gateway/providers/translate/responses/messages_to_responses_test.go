package responses

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

// createdAt matches the timestamps that differ between two runs.
var createdAt = regexp.MustCompile(`"(created_at|completed_at)":\d+`)

// TestMessagesToResponsesStreamChainsWithoutText: the chained stream gives
// exactly what feeding the first converter's output, read back from its
// text, to the second gives.
func TestMessagesToResponsesStreamChainsWithoutText(t *testing.T) {
	req := []byte(`{"model":"claude","input":"hi","stream":true}`)
	upstream := sse.Split(fixtures.Must(t, "anthropic", "messages_stream.txt"))

	chained := NewMessagesToResponsesStream("alias", req)
	first := anthropic.NewMessagesToChatStream("alias", true)
	second := NewChatToResponsesStream(req)
	var got, want []byte
	feedText := func(text []byte) {
		for _, ev := range sse.Split(text) {
			out, _ := second.Feed(ev)
			want = append(want, out...)
		}
	}
	for _, ev := range upstream {
		out, err := chained.Feed(ev)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, out...)
		text, _ := first.Feed(ev)
		feedText(text)
	}
	got = append(got, chained.Finish()...)
	feedText(first.Finish())
	want = append(want, second.Finish()...)

	got, want = createdAt.ReplaceAll(got, []byte(`"$1":0`)), createdAt.ReplaceAll(want, []byte(`"$1":0`))
	if !bytes.Equal(got, want) {
		t.Fatalf("chained:\n%s\nthrough text:\n%s", got, want)
	}
	evs := sse.Split(got)
	if len(evs) < 4 || evs[len(evs)-1].Name != "response.completed" {
		t.Fatalf("stream does not complete: %d events", len(evs))
	}
	u, ok := chained.Usage()
	if !ok || u.InputTokens == 0 || u.OutputTokens == 0 {
		t.Fatalf("usage %+v %v", u, ok)
	}
}

func TestMessagesToResponsesResponse(t *testing.T) {
	req := []byte(`{"model":"claude","input":"hi","metadata":{"k":"v"}}`)
	out, usage, err := MessagesToResponsesResponse(fixtures.Must(t, "anthropic", "messages.json"), req, "alias")
	if err != nil {
		t.Fatal(err)
	}
	root := gjson.ParseBytes(out)
	if root.Get("object").Str != "response" || root.Get("status").Str != "completed" || root.Get("model").Str != "alias" ||
		root.Get("output.0.content.0.text").Str == "" || root.Get("metadata.k").Str != "v" {
		t.Fatalf("%s", out)
	}
	if usage.InputTokens == 0 || root.Get("usage.input_tokens").Int() != usage.InputTokens {
		t.Fatalf("usage %+v, body %s", usage, root.Get("usage").Raw)
	}
	if _, _, err := MessagesToResponsesResponse([]byte(`{"type":"error"}`), req, ""); err == nil {
		t.Fatal("an error body is not a message")
	}
}

// TestResponsesToMessagesRequestNamesResponsesFields: a refusal from the
// Chat Completions → Messages step names the field of the Responses
// request, not the intermediate chat one.
func TestResponsesToMessagesRequestNamesResponsesFields(t *testing.T) {
	out, err := ResponsesToMessagesRequest([]byte(`{"model":"claude","instructions":"be brief","input":"hi","max_output_tokens":50}`), 4096)
	if err != nil {
		t.Fatal(err)
	}
	if r := gjson.ParseBytes(out); r.Get("max_tokens").Int() != 50 || r.Get("system").Str != "be brief" || r.Get("messages.0.content").Str != "hi" {
		t.Fatalf("%s", out)
	}
	for _, c := range []struct{ body, param string }{
		{`{"model":"m","input":"x","tools":[{"type":"function","name":"modelgate_json_response","parameters":{"type":"object"}}]}`, "tools[0].name"},
		{`{"model":"m","input":"x","reasoning":{"effort":"bogus"}}`, "reasoning.effort"},
		{`{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_data":"data:audio/wav;base64,AAAA"}]}]}`, "input[0].content[0]"},
		{`{"model":"m","instructions":"sys","input":[{"role":"user","content":"a"},{"role":"user","content":[{"type":"input_file","file_data":"data:audio/wav;base64,AAAA"}]}]}`, "input[1].content[0]"},
	} {
		_, err := ResponsesToMessagesRequest([]byte(c.body), 4096)
		te, ok := err.(*translate.Error)
		if !ok || te.Param != c.param {
			t.Errorf("%s: error %v, want param %s", c.body, err, c.param)
		}
	}
}

func TestChatParamToResponses(t *testing.T) {
	for _, c := range []struct {
		param, want  string
		instructions bool
	}{
		{"max_completion_tokens", "max_output_tokens", false},
		{"max_tokens", "max_output_tokens", false},
		{"reasoning_effort", "reasoning.effort", false},
		{"response_format.json_schema.schema", "text.format", false},
		{"tools[2].function.name", "tools[2].name", false},
		{"messages[0]", "instructions", true},
		{"messages[3].content[1].file", "input[2].content[1]", true},
		{"messages[3].role", "input[3]", false},
		{"messages", "input", false},
		{"temperature", "temperature", false},
	} {
		if got := chatParamToResponses(c.param, c.instructions); got != c.want {
			t.Errorf("%s (instructions %v) → %s, want %s", c.param, c.instructions, got, c.want)
		}
	}
}

// TestResponsesToChatRequestTarget: the output cap and stream_options
// follow the upstream's quirks.
func TestResponsesToChatRequestTarget(t *testing.T) {
	body := []byte(`{"model":"m","input":"hi","max_output_tokens":64,"stream":true}`)
	out, err := ResponsesToChatRequest(body, translate.ChatTarget{LegacyMaxTokens: true, NoStreamOptions: true})
	if err != nil {
		t.Fatal(err)
	}
	r := gjson.ParseBytes(out)
	if r.Get("max_tokens").Int() != 64 || r.Get("max_completion_tokens").Exists() || r.Get("stream_options").Exists() || !r.Get("stream").Bool() {
		t.Fatalf("%s", out)
	}
	out, _ = ResponsesToChatRequest(body, translate.ChatTarget{})
	r = gjson.ParseBytes(out)
	if r.Get("max_completion_tokens").Int() != 64 || r.Get("max_tokens").Exists() || !r.Get("stream_options.include_usage").Bool() {
		t.Fatalf("%s", out)
	}
}

// TestMessagesToResponsesStreamKeepsTheLimit: an Anthropic stream that
// stops at max_tokens ends the chained Responses stream with
// response.incomplete (reason max_output_tokens), as the same stream read
// back from text does: the finish reason kept from one event must not be
// overwritten by the first converter's next one.
func TestMessagesToResponsesStreamKeepsTheLimit(t *testing.T) {
	up := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":16}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	s := NewMessagesToResponsesStream("alias", []byte(`{"model":"claude","input":"hi","stream":true,"max_output_tokens":16}`))
	var out []byte
	for _, ev := range sse.Split([]byte(up)) {
		b, err := s.Feed(ev)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	out = append(out, s.Finish()...)
	evs := sse.Split(out)
	last := evs[len(evs)-1]
	if last.Name != "response.incomplete" || gjson.GetBytes(last.Data, "response.status").Str != "incomplete" ||
		gjson.GetBytes(last.Data, "response.incomplete_details.reason").Str != "max_output_tokens" {
		t.Fatalf("last event %s %s", last.Name, last.Data)
	}
}
