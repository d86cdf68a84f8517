package anthropic

// Vocabulary of the OpenAI Chat Completions wire format used by the
// Anthropic translation.

// Chat finish reasons.
const (
	chatFinishStop          = "stop"
	chatFinishLength        = "length"
	chatFinishToolCalls     = "tool_calls"
	chatFinishContentFilter = "content_filter"
	chatFinishFunctionCall  = "function_call"
)

// chatFinishToAnthropic maps a chat finish_reason onto an Anthropic
// stop_reason. hadToolCalls says whether the message carried tool calls:
// some OpenAI-compatible upstreams report "stop" after calling tools, and
// an Anthropic client needs "tool_use" to run them.
func chatFinishToAnthropic(reason string, hadToolCalls bool) string {
	switch reason {
	case chatFinishLength:
		return anthropicStopMaxTokens
	case chatFinishToolCalls, chatFinishFunctionCall:
		return anthropicStopToolUse
	case chatFinishContentFilter:
		return anthropicStopRefusal
	}
	if hadToolCalls {
		return anthropicStopToolUse
	}
	return anthropicStopEndTurn
}

// Reasoning effort levels of reasoning_effort and the thinking budget
// (budget_tokens) each one becomes on Anthropic models. The budgets double
// from "low" up; "minimal" is Anthropic's smallest allowed budget.
var chatEffortBudgets = map[string]int64{
	"minimal": 1024,
	"low":     2048,
	"medium":  8192,
	"high":    16384,
	"xhigh":   32768,
}

// anthropicMinThinkingBudget is the smallest budget_tokens Anthropic
// accepts.
const anthropicMinThinkingBudget = 1024

// budgetToChatEffort maps an Anthropic thinking budget onto the closest of
// the three reasoning_effort levels every OpenAI reasoning model accepts.
// It is the inverse of chatEffortBudgets for "low", "medium" and "high".
func budgetToChatEffort(budget int64) string {
	switch {
	case budget < 4096:
		return "low"
	case budget < 16384:
		return "medium"
	default:
		return "high"
	}
}
