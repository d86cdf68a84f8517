package anthropic

import (
	"errors"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

func TestMessagesRequestNeedsMaxTokens(t *testing.T) {
	_, err := MessagesToChatRequest([]byte(`{"model":"m","messages":[{"role":"user","content":"x"}]}`), translate.ChatTarget{})
	var te *translate.Error
	if !errors.As(err, &te) || te.Message != "max_tokens: Field required" || te.Param != "max_tokens" ||
		te.Code != translate.CodeMissingParameter {
		t.Fatalf("got %#v", err)
	}
	for _, bad := range []string{`null`, `0`, `1.5`, `"8"`} {
		_, err := MessagesToChatRequest([]byte(`{"model":"m","max_tokens":`+bad+`,"messages":[]}`), translate.ChatTarget{})
		anthWantError(t, err, "max_tokens", "positive integer")
	}
	out, err := MessagesToChatRequest([]byte(`{"model":"m","max_tokens":8,"messages":[]}`), translate.ChatTarget{})
	if err != nil || gjson.GetBytes(out, "max_completion_tokens").Int() != 8 {
		t.Fatalf("%s %v", out, err)
	}
}
