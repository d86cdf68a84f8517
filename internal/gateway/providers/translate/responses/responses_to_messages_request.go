package responses

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
)

// ResponsesToMessagesRequest translates a Responses request (POST
// /v1/responses) into an Anthropic Messages request, through Chat
// Completions: ResponsesToChatRequest, then anthropic.ChatToMessagesRequest
// with defaultMaxTokens. A refusal from the second step names the field of
// the Responses request the client sent (see chatParamToResponses), not
// the intermediate Chat Completions one.
func ResponsesToMessagesRequest(body []byte, defaultMaxTokens int) ([]byte, error) {
	messages, _, err := ResponsesToMessagesRequestRevised(body, defaultMaxTokens)
	return messages, err
}

// ResponsesToMessagesRequestRevised is ResponsesToMessagesRequest that
// also returns the changes both steps made that the client did not ask
// for (see ResponsesToChatRequestRevised and
// anthropic.ChatToMessagesRequestRevised).
func ResponsesToMessagesRequestRevised(body []byte, defaultMaxTokens int) ([]byte, []translate.Revision, error) {
	chat, revisions, err := ResponsesToChatRequestRevised(body, translate.ChatTarget{})
	if err != nil {
		return nil, nil, err
	}
	messages, more, err := anthropic.ChatToMessagesRequestRevised(chat, defaultMaxTokens)
	if err != nil {
		var te *translate.Error
		if errors.As(err, &te) && te.Param != "" {
			hasInstructions := gjson.GetBytes(body, "instructions").Exists()
			return nil, nil, &translate.Error{Message: te.Message, Param: chatParamToResponses(te.Param, hasInstructions)}
		}
		return nil, nil, err
	}
	return messages, append(revisions, more...), nil
}

// chatParamToResponses maps the path of a Chat Completions field onto the
// field of the Responses request it was translated from: the output cap is
// max_output_tokens, reasoning_effort is reasoning.effort, response_format
// is text.format, a function tool's members sit directly on the tool, and
// messages[N] is input[N] (instructions, when given, became messages[0]),
// keeping a content index.
func chatParamToResponses(param string, hasInstructions bool) string {
	head, rest := param, ""
	if i := strings.IndexAny(param, ".["); i >= 0 {
		head, rest = param[:i], param[i:]
	}
	switch head {
	case "max_completion_tokens", "max_tokens":
		return "max_output_tokens"
	case "reasoning_effort":
		return "reasoning.effort"
	case "response_format":
		return "text.format"
	case "tool_choice":
		return "tool_choice"
	case "tools":
		// tools[N].function.name → tools[N].name: Responses tools are flat.
		return "tools" + strings.Replace(rest, ".function", "", 1)
	case "messages":
		var n int
		if _, err := fmt.Sscanf(rest, "[%d]", &n); err != nil {
			return "input"
		}
		if hasInstructions {
			if n == 0 {
				return "instructions"
			}
			n--
		}
		out := "input[" + strconv.Itoa(n) + "]"
		if i := strings.Index(rest, ".content["); i >= 0 {
			if j := strings.IndexByte(rest[i:], ']'); j >= 0 {
				out += rest[i : i+j+1]
			}
		}
		return out
	}
	return param
}
