package anthropic

import (
	"strconv"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// fallbackMaxTokens is the max_tokens sent to Anthropic when neither the
// client nor the caller (defaultMaxTokens) chose one.
const fallbackMaxTokens = 4096

// chatRequest holds the top-level fields of a chat completions request.
type chatRequest struct {
	model, messages, maxTokens, maxCompletionTokens       gjson.Result
	temperature, topP, stop, stream, user, safetyID, meta gjson.Result
	tools, toolChoice, parallel, effort, responseFormat   gjson.Result
	serviceTier, reasoning                                gjson.Result
	// revisions are the changes made to fit the request onto Anthropic
	// that the client did not ask for.
	revisions []translate.Revision
}

// ChatToMessagesRequest translates an OpenAI chat completions request into
// an Anthropic Messages request.
//
// System and developer messages (wherever they appear) become the
// top-level system prompt, in order; consecutive tool messages become one
// user message of tool_result blocks. max_tokens is max_completion_tokens,
// else max_tokens, else defaultMaxTokens (4096 when that is not positive).
// reasoning_effort turns on extended thinking with the budget in
// chatEffortBudgets; response_format json_object adds a system instruction
// and json_schema a forced tool (see jsonToolName). Every other request
// field is either mapped or, when Anthropic cannot honour it, rejected with
// an *Error naming it; UNSUPPORTED.md lists them.
func ChatToMessagesRequest(chat []byte, defaultMaxTokens int) (messages []byte, err error) {
	messages, _, err = ChatToMessagesRequestRevised(chat, defaultMaxTokens)
	return messages, err
}

// ChatToMessagesRequestRevised is ChatToMessagesRequest that also returns
// the changes it made that the client did not ask for, for the audit
// record: a max_tokens raised to make room for the thinking budget
// (rewriter "fit_thinking_budget").
func ChatToMessagesRequestRevised(chat []byte, defaultMaxTokens int) (messages []byte, revisions []translate.Revision, err error) {
	r, body, err := chatToMessages(chat, defaultMaxTokens)
	return body, r.revisions, err
}

// chatToMessages translates chat and returns the request it read.
func chatToMessages(chat []byte, defaultMaxTokens int) (r chatRequest, messages []byte, err error) {
	messages, err = r.translate(chat, defaultMaxTokens)
	return r, messages, err
}

// translate is the body of ChatToMessagesRequest, reading into r.
func (r *chatRequest) translate(chat []byte, defaultMaxTokens int) (messages []byte, err error) {
	root, err := translate.ParseRequest(chat)
	if err != nil {
		return nil, err
	}
	if err := r.collect(root); err != nil {
		return nil, err
	}
	if err := checkModelAndMessages(r.model, r.messages); err != nil {
		return nil, err
	}

	// Limits and sampling, which extended thinking constrains.
	maxTokens, userMax := int64(defaultMaxTokens), false
	switch {
	case translate.IsSet(r.maxCompletionTokens):
		if maxTokens, err = positiveInt(r.maxCompletionTokens, "max_completion_tokens"); err != nil {
			return nil, err
		}
		userMax = true
	case translate.IsSet(r.maxTokens):
		if maxTokens, err = positiveInt(r.maxTokens, "max_tokens"); err != nil {
			return nil, err
		}
		userMax = true
	}
	if maxTokens <= 0 {
		maxTokens = fallbackMaxTokens
	}
	thinking, budget, err := r.thinking()
	if thinking && unsignedToolTurn(r.messages) {
		// With thinking on, Anthropic refuses a conversation whose last
		// assistant turn used a tool without the signed thinking block it
		// began with (a client that did not send thinking_blocks back, or
		// a Responses client, whose reasoning items carry no signature):
		// that request goes without thinking rather than failing.
		thinking = false
	}
	if err != nil {
		return nil, err
	}
	if thinking {
		if maxTokens, budget, err = r.thinkingLimits(maxTokens, budget, userMax); err != nil {
			return nil, err
		}
	}
	if translate.IsSet(r.temperature) {
		if r.temperature.Type != gjson.Number || r.temperature.Num < 0 || r.temperature.Num > 1 {
			return nil, translate.Refuse(translate.Param("temperature"), "temperature must be a number between 0 and 1 for "+
				toAnthropic+" (Anthropic's range is 0 to 1, not OpenAI's 0 to 2)")
		}
	}
	if translate.IsSet(r.topP) && (r.topP.Type != gjson.Number || r.topP.Num < 0 || r.topP.Num > 1) {
		return nil, translate.Invalid(translate.Param("top_p"), "a number between 0 and 1")
	}

	format, err := r.jsonFormat()
	if err != nil {
		return nil, err
	}

	w := translate.Writer{Buf: make([]byte, 0, len(chat)+256)}
	w.Obj()
	w.Key("model")
	w.RawStr(r.model)
	w.KeyInt("max_tokens", maxTokens)
	if err := writeAnthropicSystem(&w, r.messages, format, thinking); err != nil {
		return nil, err
	}
	w.Key("messages")
	if err := writeAnthropicMessages(&w, r.messages); err != nil {
		return nil, err
	}
	if err := r.writeTools(&w, format, thinking); err != nil {
		return nil, err
	}
	switch {
	case thinking:
		w.Key("thinking")
		w.Obj()
		w.KeyStr("type", "enabled")
		w.KeyInt("budget_tokens", budget)
		w.EndObj()
	case translate.IsSet(r.effort): // "none"
		w.KeyRaw("thinking", `{"type":"disabled"}`)
	}
	if translate.IsSet(r.temperature) {
		w.KeyRaw("temperature", r.temperature.Raw)
	}
	if translate.IsSet(r.topP) {
		w.KeyRaw("top_p", r.topP.Raw)
	}
	if err := writeStopSequences(&w, r.stop); err != nil {
		return nil, err
	}
	if translate.IsSet(r.stream) {
		if r.stream.Type != gjson.True && r.stream.Type != gjson.False {
			return nil, translate.Invalid(translate.Param("stream"), "a boolean")
		}
		w.KeyRaw("stream", r.stream.Raw)
	}
	if err := r.writeMetadata(&w); err != nil {
		return nil, err
	}
	if translate.IsSet(r.serviceTier) {
		switch r.serviceTier.Str {
		case "auto":
			w.KeyStr("service_tier", "auto")
		case "default":
			w.KeyStr("service_tier", "standard_only")
		default:
			return nil, translate.CannotExpress(translate.Param("service_tier"), toAnthropic,
				"only \"auto\" and \"default\" have an Anthropic equivalent")
		}
	}
	w.EndObj()
	return w.Buf, nil
}

// collect sorts the request's fields, rejecting those Anthropic cannot
// honour. A null value counts as absent.
func (r *chatRequest) collect(root gjson.Result) error {
	var err error
	root.ForEach(func(k, v gjson.Result) bool {
		name := k.Str
		switch name {
		case "model":
			r.model = v
		case "messages":
			r.messages = v
		case "max_tokens":
			r.maxTokens = v
		case "max_completion_tokens":
			r.maxCompletionTokens = v
		case "temperature":
			r.temperature = v
		case "top_p":
			r.topP = v
		case "stop":
			r.stop = v
		case "stream":
			r.stream = v
		case "user":
			r.user = v
		case "safety_identifier":
			r.safetyID = v
		case "metadata":
			r.meta = v
		case "tools":
			r.tools = v
		case "tool_choice":
			r.toolChoice = v
		case "parallel_tool_calls":
			r.parallel = v
		case "reasoning_effort":
			r.effort = v
		case "reasoning":
			r.reasoning = v
		case "response_format":
			r.responseFormat = v
		case "service_tier":
			r.serviceTier = v
		case "stream_options", "prompt_cache_key", "prompt_cache_retention":
			// Accepted without effect on the upstream request: stream usage
			// is always reported by Anthropic and handled by the stream
			// converter; Anthropic's prompt cache is driven by cache_control.
		default:
			err = rejectChatField(name, v)
		}
		return err == nil
	})
	return err
}

// rejectChatField checks a field Anthropic has no equivalent for: its
// no-op values pass, anything else is an *Error.
func rejectChatField(name string, v gjson.Result) error {
	if !translate.IsSet(v) {
		return nil
	}
	why := ""
	switch name {
	case "n":
		if v.Type == gjson.Number && v.Num == 1 {
			return nil
		}
		why = "Anthropic returns one choice per request; send separate requests instead"
	case "logprobs":
		if v.Type == gjson.False {
			return nil
		}
		why = "Anthropic does not return log probabilities"
	case "top_logprobs":
		if v.Type == gjson.Number && v.Num == 0 {
			return nil
		}
		why = "Anthropic does not return log probabilities"
	case "frequency_penalty", "presence_penalty":
		if v.Type == gjson.Number && v.Num == 0 {
			return nil
		}
		why = "Anthropic has no repetition penalties"
	case "logit_bias":
		if v.IsObject() && !translate.HasElements(v) {
			return nil
		}
		why = "Anthropic has no token biasing"
	case "store":
		if v.Type == gjson.False {
			return nil
		}
		why = "stored completions are an OpenAI feature"
	case "modalities":
		ok := v.IsArray()
		v.ForEach(func(_, m gjson.Result) bool {
			ok = ok && m.Str == "text"
			return ok
		})
		if ok {
			return nil
		}
		why = "Anthropic models produce text only"
	case "audio":
		why = "Anthropic models produce text only"
	case "seed":
		why = "Anthropic has no seeded sampling"
	case "prediction":
		why = "Anthropic has no predicted outputs"
	case "verbosity":
		why = "Anthropic has no verbosity control"
	case "web_search_options":
		why = "web search through chat completions is an OpenAI feature"
	case "functions", "function_call":
		why = "deprecated; use tools and tool_choice"
	default:
		return translate.Unknown(translate.Param(name), toAnthropic)
	}
	return translate.CannotExpress(translate.Param(name), toAnthropic, why)
}

// thinking reads reasoning_effort, else the reasoning object
// ({"effort": …} as the Responses API and OpenRouter take it, or
// OpenRouter's {"max_tokens": n}, the budget itself; its other members
// have no Anthropic counterpart and are left out): whether extended
// thinking is on and with which budget.
func (r *chatRequest) thinking() (bool, int64, error) {
	if !translate.IsSet(r.effort) && translate.IsSet(r.reasoning) {
		if !r.reasoning.IsObject() {
			return false, 0, translate.Invalid(translate.Param("reasoning"), "an object")
		}
		if n := r.reasoning.Get("max_tokens"); n.Exists() && n.Type != gjson.Null {
			if n.Type != gjson.Number || n.Num != float64(int64(n.Num)) || n.Num < anthropicMinThinkingBudget {
				return false, 0, translate.Invalid(translate.Param("reasoning.max_tokens"),
					"a whole number of at least "+strconv.Itoa(anthropicMinThinkingBudget)+" (Anthropic's smallest thinking budget)")
			}
			return true, int64(n.Num), nil
		}
		r.effort = r.reasoning.Get("effort")
	}
	if !translate.IsSet(r.effort) {
		return false, 0, nil
	}
	if r.effort.Type != gjson.String {
		return false, 0, translate.Invalid(translate.Param("reasoning_effort"), "a string")
	}
	if r.effort.Str == "none" {
		return false, 0, nil
	}
	budget, ok := chatEffortBudgets[r.effort.Str]
	if !ok {
		return false, 0, translate.Invalid(translate.Param("reasoning_effort"), `one of "none", "minimal", "low", "medium", "high", "xhigh"`)
	}
	return true, budget, nil
}

// thinkingLimits fits max_tokens and the thinking budget together
// (Anthropic wants budget_tokens < max_tokens, budget_tokens >= 1024) and
// checks the sampling settings extended thinking allows.
func (r *chatRequest) thinkingLimits(maxTokens, budget int64, userMax bool) (int64, int64, error) {
	if userMax {
		if maxTokens <= anthropicMinThinkingBudget {
			// Too small for Anthropic's smallest thinking budget: think
			// with that budget and keep the client's cap for the answer.
			raised := anthropicMinThinkingBudget + maxTokens
			r.revisions = append(r.revisions, translate.Revision{Rewriter: "fit_thinking_budget",
				Detail: `{"max_tokens_before":` + strconv.FormatInt(maxTokens, 10) + `,"max_tokens_after":` +
					strconv.FormatInt(raised, 10) + `,"thinking_budget":` + strconv.Itoa(anthropicMinThinkingBudget) + `}`})
			return raised, anthropicMinThinkingBudget, r.checkThinkingSampling()
		}
		// The client's cap covers thinking and answer together, as it
		// does on OpenAI; leave at least half of it for the answer.
		budget = min(budget, max(anthropicMinThinkingBudget, maxTokens/2))
	} else if maxTokens <= budget {
		maxTokens += budget
	}
	return maxTokens, budget, r.checkThinkingSampling()
}

// checkThinkingSampling refuses the sampling settings extended thinking
// does not allow.
func (r *chatRequest) checkThinkingSampling() error {
	if translate.IsSet(r.temperature) && r.temperature.Num != 1 {
		return translate.Refuse(translate.Param("temperature"), "temperature cannot be set together with reasoning_effort for "+
			toAnthropic+" (extended thinking requires temperature 1)")
	}
	if translate.IsSet(r.topP) && r.topP.Num < 0.95 {
		return translate.Refuse(translate.Param("top_p"), "top_p must be between 0.95 and 1 together with reasoning_effort for "+
			toAnthropic+" (an extended-thinking restriction)")
	}
	return nil
}

// writeStopSequences writes stop (a string or an array of strings) as
// stop_sequences.
func writeStopSequences(w *translate.Writer, stop gjson.Result) error {
	switch {
	case !translate.IsSet(stop):
		return nil
	case stop.Type == gjson.String:
		if stop.Str != "" {
			w.Key("stop_sequences")
			w.Arr()
			w.RawStr(stop)
			w.EndArr()
		}
		return nil
	case stop.IsArray():
		var err error
		n := 0
		stop.ForEach(func(_, s gjson.Result) bool {
			if s.Type != gjson.String {
				err = translate.Invalid(translate.Param("stop"), "a string or an array of strings")
				return false
			}
			if s.Str == "" {
				return true
			}
			if n == 0 {
				w.Key("stop_sequences")
				w.Arr()
			}
			n++
			w.RawStr(s)
			return true
		})
		if n > 0 {
			w.EndArr()
		}
		return err
	default:
		return translate.Invalid(translate.Param("stop"), "a string or an array of strings")
	}
}

// writeMetadata writes metadata.user_id from user, else safety_identifier,
// else metadata.user_id. Other metadata keys only label OpenAI stored
// completions and have no Anthropic counterpart.
func (r *chatRequest) writeMetadata(w *translate.Writer) error {
	if translate.IsSet(r.meta) && !r.meta.IsObject() {
		return translate.Invalid(translate.Param("metadata"), "an object")
	}
	for _, c := range []struct {
		v     gjson.Result
		param string
	}{{r.user, "user"}, {r.safetyID, "safety_identifier"}, {r.meta.Get("user_id"), "metadata.user_id"}} {
		if !translate.IsSet(c.v) {
			continue
		}
		if c.v.Type != gjson.String {
			return translate.Invalid(translate.Param(c.param), "a string")
		}
		if c.v.Str == "" {
			continue
		}
		w.Key("metadata")
		w.Obj()
		w.Key("user_id")
		w.RawStr(c.v)
		w.EndObj()
		return nil
	}
	return nil
}

// unsignedToolTurn reports whether the last assistant message of a chat
// conversation called a tool without carrying a signed thinking block
// (thinking_blocks with a signature, or a redacted one) to begin its
// Anthropic turn with.
func unsignedToolTurn(messages gjson.Result) bool {
	var last gjson.Result
	messages.ForEach(func(_, m gjson.Result) bool {
		if m.Get("role").Str == "assistant" {
			last = m
		}
		return true
	})
	if !last.Exists() || !last.Get("tool_calls").IsArray() || len(last.Get("tool_calls").Array()) == 0 {
		return false
	}
	signed := false
	last.Get("thinking_blocks").ForEach(func(_, b gjson.Result) bool {
		if b.Get("signature").Str != "" || b.Get("type").Str == "redacted_thinking" {
			signed = true
			return false
		}
		return true
	})
	return !signed
}
