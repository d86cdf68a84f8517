package anthropic

// Vocabulary of the Anthropic Messages wire format.

// Anthropic stop reasons.
const (
	anthropicStopEndTurn       = "end_turn"
	anthropicStopMaxTokens     = "max_tokens"
	anthropicStopStopSequence  = "stop_sequence"
	anthropicStopToolUse       = "tool_use"
	anthropicStopPauseTurn     = "pause_turn"
	anthropicStopRefusal       = "refusal"
	anthropicStopContextWindow = "model_context_window_exceeded"
)

// anthropicStopToChat maps an Anthropic stop_reason onto a chat
// finish_reason.
func anthropicStopToChat(reason string) string {
	switch reason {
	case anthropicStopMaxTokens, anthropicStopContextWindow:
		return chatFinishLength
	case anthropicStopToolUse:
		return chatFinishToolCalls
	case anthropicStopRefusal:
		return chatFinishContentFilter
	case anthropicStopEndTurn, anthropicStopStopSequence, anthropicStopPauseTurn:
		return chatFinishStop
	default: // a reason added after this was written
		return chatFinishStop
	}
}

// jsonToolName is the tool that carries a json_schema response_format to
// Anthropic: ChatToMessagesRequest declares it with the schema as
// input_schema and makes the model call it; the response and stream
// converters turn its call back into the message content, so the client
// sees a plain JSON answer. A client tool of this name is rejected.
const jsonToolName = "modelgate_json_response"

// jsonObjectInstruction is the system text that asks an Anthropic model for
// JSON when the client set response_format {"type":"json_object"}.
const jsonObjectInstruction = "Respond with a single valid JSON object and nothing else: no prose, no Markdown code fences."

// anthropicImageTypes are the image media types Anthropic accepts.
var anthropicImageTypes = map[string]bool{
	"image/jpeg": true,
	"image/png":  true,
	"image/gif":  true,
	"image/webp": true,
}
