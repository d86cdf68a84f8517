package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// TestShapesUpstreamErrorsAcrossShapes: an upstream error reaches a client
// of another shape in that client's error shape, with the upstream's
// status and message; an error in the middle of a translated stream ends
// the client's stream with an error its SDK reports.
func TestShapesUpstreamErrorsAcrossShapes(t *testing.T) {
	g, ups := startMatrixGateway(t)
	oai := openaiClient(g, masterKey)
	anth := anthropicClient(g, masterKey)
	claude := "anth/" + claudeModel
	defer ups.anth.Respond("messages.json")

	anthFails := func(status int, typ, msg string) {
		ups.anth.Script(func(w http.ResponseWriter, _ *http.Request, _ []byte) {
			w.Header().Set("Content-Type", "application/json")
			if status == 429 {
				w.Header().Set("Retry-After", "7")
			}
			w.WriteHeader(status)
			_, _ = w.Write([]byte(`{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"}}`))
		})
	}

	t.Run("anthropic 429 to a chat client", func(t *testing.T) {
		anthFails(429, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"`+claude+`","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		e := decodeError(t, res.Status, res.Body)
		if res.Status != 429 || e.Type != "rate_limit_error" || res.Header.Get("Retry-After") != "7" ||
			!strings.Contains(e.Message, "per-minute rate limit") || e.Provider != "anth" {
			t.Errorf("status %d Retry-After %q error %+v", res.Status, res.Header.Get("Retry-After"), e)
		}
		_, err := oai.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: claude,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		var oe *openai.Error
		if !errors.As(err, &oe) || oe.StatusCode != 429 {
			t.Errorf("SDK error = %v", err)
		}
	})
	t.Run("anthropic 529 to a chat client", func(t *testing.T) {
		anthFails(529, "overloaded_error", "Overloaded")
		res := request(t, "POST", g.URL+"/v1/chat/completions",
			`{"model":"`+claude+`","messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		e := decodeError(t, res.Status, res.Body)
		if res.Status != 529 || e.Type != "provider_error" || !strings.Contains(e.Message, "Overloaded") {
			t.Errorf("status %d error %+v", res.Status, e)
		}
	})
	t.Run("openai 400 to a messages client", func(t *testing.T) {
		ups.openai.Handle("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":{"message":"Invalid 'messages[0].content': string too long.","type":"invalid_request_error","param":"messages[0].content","code":"string_above_max_length"}}`))
		})
		defer ups.openai.Unhandle("/v1/chat/completions")
		_, err := anth.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "openai/gpt-4o-mini", MaxTokens: 32,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
		var ae *anthropic.Error
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Type() != "invalid_request_error" || !strings.Contains(ae.RawJSON(), "string too long") {
			t.Errorf("SDK error = %v", err)
		}
	})
	t.Run("groq 429 to a messages client", func(t *testing.T) {
		ups.groq.Handle("/v1/chat/completions", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(429)
			_, _ = w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"tokens","code":"rate_limit_exceeded"}}`))
		})
		defer ups.groq.Unhandle("/v1/chat/completions")
		res := request(t, "POST", g.URL+"/v1/messages",
			`{"model":"groq/llama-3.3-70b-versatile","max_tokens":32,"messages":[{"role":"user","content":"hi"}]}`, bearer(masterKey)...)
		if res.Status != 429 || res.Header.Get("Retry-After") != "3" || !strings.Contains(string(res.Body), `"type":"error"`) ||
			!strings.Contains(string(res.Body), `"rate_limit_error"`) || !strings.Contains(string(res.Body), "Rate limit reached") {
			t.Errorf("status %d Retry-After %q body %s", res.Status, res.Header.Get("Retry-After"), res.Body)
		}
	})

	// An error event after the stream started.
	overloaded := func(w http.ResponseWriter, _ *http.Request, _ []byte) {
		writeEvents(w,
			"message_start\x00"+`{"type":"message_start","message":{"id":"msg_shp_e","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`,
			"content_block_start\x00"+`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
			"content_block_delta\x00"+`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`,
			"error\x00"+`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	}
	t.Run("anthropic stream error to a chat client", func(t *testing.T) {
		ups.anth.Script(overloaded)
		stream := oai.Chat.Completions.NewStreaming(context.Background(), openai.ChatCompletionNewParams{Model: claude,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		content := ""
		for stream.Next() {
			if ch := stream.Current(); len(ch.Choices) > 0 {
				content += ch.Choices[0].Delta.Content
			}
		}
		err := stream.Err()
		_ = stream.Close()
		if content != "Hel" || err == nil || !strings.Contains(err.Error(), "Overloaded") {
			t.Errorf("content %q, stream error %v; want the text so far and an error naming Overloaded", content, err)
		}
	})
	t.Run("anthropic stream error to a responses client", func(t *testing.T) {
		ups.anth.Script(overloaded)
		stream := oai.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{Model: claude,
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
		var last responses.ResponseStreamEventUnion
		for stream.Next() {
			last = stream.Current()
		}
		err := stream.Err()
		_ = stream.Close()
		failed := last.Type == "response.failed" && strings.Contains(last.Response.Error.Message, "Overloaded")
		if !failed && (err == nil || !strings.Contains(err.Error(), "Overloaded")) {
			t.Errorf("last event %s (%s), stream error %v; want response.failed naming Overloaded", last.Type, last.RawJSON(), err)
		}
	})
}
