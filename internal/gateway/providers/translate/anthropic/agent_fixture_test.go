package anthropic

import (
	"os"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// TestClaudeCodeFirstRequest replays the first request Claude Code sends
// (captured from the CLI, secrets removed) onto a Chat Completions target:
// it carries a system-role message between the turns, adaptive thinking,
// output_config.effort, context_management and deferred tools.
func TestClaudeCodeFirstRequest(t *testing.T) {
	body, err := os.ReadFile("testdata/claude-code-2.1.330-first-request.json")
	if err != nil {
		t.Fatal(err)
	}
	chat, err := MessagesToChatRequest(body, translate.ChatTarget{})
	if err != nil {
		t.Fatalf("the Claude Code request does not translate: %v", err)
	}
	in := gjson.GetBytes(body, "messages")
	var systemAt []int
	for i, m := range in.Array() {
		if m.Get("role").Str == "system" {
			systemAt = append(systemAt, i)
		}
	}
	if len(systemAt) == 0 {
		t.Fatal("the fixture lost its system-role message")
	}
	out := gjson.GetBytes(chat, "messages").Array()
	// The top-level system prompt comes first, one message per text block.
	lead := len(gjson.GetBytes(body, "system").Array())
	var got []string
	for _, m := range out[lead:] {
		got = append(got, m.Get("role").Str)
	}
	for _, i := range systemAt {
		if i >= len(got) || got[i] != "system" {
			t.Fatalf("messages[%d] (system) is not a system message in place: roles %v", i, got)
		}
		if text := out[lead+i].Get("content").Str; text == "" {
			t.Errorf("system message %d has no text", i)
		}
	}
	// Deferred tools (defer_loading) wait for a tool search a chat model
	// does not have: they are left out, every other tool is kept.
	want := 0
	for _, tool := range gjson.GetBytes(body, "tools").Array() {
		if !tool.Get("defer_loading").Bool() {
			want++
		}
	}
	if n := len(gjson.GetBytes(chat, "tools").Array()); n != want || want == 0 {
		t.Errorf("%d tools translated, want %d", n, want)
	}
	if e := gjson.GetBytes(chat, "reasoning_effort").Str; e != "high" {
		t.Errorf("reasoning_effort %q, want high (output_config.effort)", e)
	}
	if !gjson.GetBytes(chat, "stream_options.include_usage").Bool() {
		t.Error("the streamed request does not ask for usage")
	}
}
