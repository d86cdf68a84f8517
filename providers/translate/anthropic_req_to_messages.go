package translate

import (
	"strconv"

	"github.com/tidwall/gjson"
)

const toAnthropic = "an Anthropic model"

// fallbackMaxTokens is the max_tokens sent to Anthropic when neither the
// client nor the caller (defaultMaxTokens) chose one.
const fallbackMaxTokens = 4096

// chatRequest holds the top-level fields of a chat completions request.
type chatRequest struct {
	model, messages, maxTokens, maxCompletionTokens       gjson.Result
	temperature, topP, stop, stream, user, safetyID, meta gjson.Result
	tools, toolChoice, parallel, effort, responseFormat   gjson.Result
	serviceTier                                           gjson.Result
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
	root, err := parseRequestObject(chat)
	if err != nil {
		return nil, err
	}
	var r chatRequest
	if err := r.collect(root); err != nil {
		return nil, err
	}
	if err := checkModelAndMessages(r.model, r.messages); err != nil {
		return nil, err
	}

	// Limits and sampling, which extended thinking constrains.
	maxTokens, userMax := int64(defaultMaxTokens), false
	switch {
	case isSet(r.maxCompletionTokens):
		if maxTokens, err = positiveInt(r.maxCompletionTokens, "max_completion_tokens"); err != nil {
			return nil, err
		}
		userMax = true
	case isSet(r.maxTokens):
		if maxTokens, err = positiveInt(r.maxTokens, "max_tokens"); err != nil {
			return nil, err
		}
		userMax = true
	}
	if maxTokens <= 0 {
		maxTokens = fallbackMaxTokens
	}
	thinking, budget, err := r.thinking()
	if err != nil {
		return nil, err
	}
	if thinking {
		if maxTokens, budget, err = r.thinkingLimits(maxTokens, budget, userMax); err != nil {
			return nil, err
		}
	}
	if isSet(r.temperature) {
		if r.temperature.Type != gjson.Number || r.temperature.Num < 0 || r.temperature.Num > 1 {
			return nil, &Error{Message: "temperature must be a number between 0 and 1 for " + toAnthropic +
				" (Anthropic's range is 0 to 1, not OpenAI's 0 to 2)", Param: "temperature"}
		}
	}
	if isSet(r.topP) && (r.topP.Type != gjson.Number || r.topP.Num < 0 || r.topP.Num > 1) {
		return nil, invalidParam(reqPath("top_p"), "a number between 0 and 1")
	}

	format, err := r.jsonFormat()
	if err != nil {
		return nil, err
	}

	w := jsonOut{b: make([]byte, 0, len(chat)+256)}
	w.obj()
	w.key("model")
	w.rawStr(r.model)
	w.keyInt("max_tokens", maxTokens)
	if err := writeAnthropicSystem(&w, r.messages, format, thinking); err != nil {
		return nil, err
	}
	w.key("messages")
	if err := writeAnthropicMessages(&w, r.messages); err != nil {
		return nil, err
	}
	if err := r.writeTools(&w, format, thinking); err != nil {
		return nil, err
	}
	switch {
	case thinking:
		w.key("thinking")
		w.obj()
		w.keyStr("type", "enabled")
		w.keyInt("budget_tokens", budget)
		w.endObj()
	case isSet(r.effort): // "none"
		w.keyRaw("thinking", `{"type":"disabled"}`)
	}
	if isSet(r.temperature) {
		w.keyRaw("temperature", r.temperature.Raw)
	}
	if isSet(r.topP) {
		w.keyRaw("top_p", r.topP.Raw)
	}
	if err := writeStopSequences(&w, r.stop); err != nil {
		return nil, err
	}
	if isSet(r.stream) {
		if r.stream.Type != gjson.True && r.stream.Type != gjson.False {
			return nil, invalidParam(reqPath("stream"), "a boolean")
		}
		w.keyRaw("stream", r.stream.Raw)
	}
	if err := r.writeMetadata(&w); err != nil {
		return nil, err
	}
	if isSet(r.serviceTier) {
		switch r.serviceTier.Str {
		case "auto":
			w.keyStr("service_tier", "auto")
		case "default":
			w.keyStr("service_tier", "standard_only")
		default:
			return nil, cannotExpress(reqPath("service_tier"), toAnthropic,
				"only \"auto\" and \"default\" have an Anthropic equivalent")
		}
	}
	w.endObj()
	return w.b, nil
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
	if !isSet(v) {
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
		if v.IsObject() && !hasElements(v) {
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
		return &Error{Message: "unknown or unsupported request field " + strconv.Quote(name) +
			" for " + toAnthropic, Param: name}
	}
	return cannotExpress(reqPath(name), toAnthropic, why)
}

// thinking reads reasoning_effort: whether extended thinking is on and with
// which budget.
func (r *chatRequest) thinking() (bool, int64, error) {
	if !isSet(r.effort) {
		return false, 0, nil
	}
	if r.effort.Type != gjson.String {
		return false, 0, invalidParam(reqPath("reasoning_effort"), "a string")
	}
	if r.effort.Str == "none" {
		return false, 0, nil
	}
	budget, ok := chatEffortBudgets[r.effort.Str]
	if !ok {
		return false, 0, invalidParam(reqPath("reasoning_effort"), `one of "none", "minimal", "low", "medium", "high", "xhigh"`)
	}
	return true, budget, nil
}

// thinkingLimits fits max_tokens and the thinking budget together
// (Anthropic wants budget_tokens < max_tokens, budget_tokens >= 1024) and
// checks the sampling settings extended thinking allows.
func (r *chatRequest) thinkingLimits(maxTokens, budget int64, userMax bool) (int64, int64, error) {
	if userMax {
		if maxTokens <= anthropicMinThinkingBudget {
			param := "max_completion_tokens"
			if !isSet(r.maxCompletionTokens) {
				param = "max_tokens"
			}
			return 0, 0, &Error{Message: param + " must be above " + strconv.Itoa(anthropicMinThinkingBudget) +
				" when reasoning_effort is set for " + toAnthropic +
				" (its smallest thinking budget is 1024 tokens)", Param: param}
		}
		// The client's cap covers thinking and answer together, as it
		// does on OpenAI; leave at least half of it for the answer.
		budget = min(budget, max(anthropicMinThinkingBudget, maxTokens/2))
	} else if maxTokens <= budget {
		maxTokens += budget
	}
	if isSet(r.temperature) && r.temperature.Num != 1 {
		return 0, 0, &Error{Message: "temperature cannot be set together with reasoning_effort for " +
			toAnthropic + " (extended thinking requires temperature 1)", Param: "temperature"}
	}
	if isSet(r.topP) && r.topP.Num < 0.95 {
		return 0, 0, &Error{Message: "top_p must be between 0.95 and 1 together with reasoning_effort for " +
			toAnthropic + " (an extended-thinking restriction)", Param: "top_p"}
	}
	return maxTokens, budget, nil
}

// writeStopSequences writes stop (a string or an array of strings) as
// stop_sequences.
func writeStopSequences(w *jsonOut, stop gjson.Result) error {
	switch {
	case !isSet(stop):
		return nil
	case stop.Type == gjson.String:
		if stop.Str != "" {
			w.key("stop_sequences")
			w.arr()
			w.rawStr(stop)
			w.endArr()
		}
		return nil
	case stop.IsArray():
		var err error
		n := 0
		stop.ForEach(func(_, s gjson.Result) bool {
			if s.Type != gjson.String {
				err = invalidParam(reqPath("stop"), "a string or an array of strings")
				return false
			}
			if s.Str == "" {
				return true
			}
			if n == 0 {
				w.key("stop_sequences")
				w.arr()
			}
			n++
			w.rawStr(s)
			return true
		})
		if n > 0 {
			w.endArr()
		}
		return err
	default:
		return invalidParam(reqPath("stop"), "a string or an array of strings")
	}
}

// writeMetadata writes metadata.user_id from user, else safety_identifier,
// else metadata.user_id. Other metadata keys only label OpenAI stored
// completions and have no Anthropic counterpart.
func (r *chatRequest) writeMetadata(w *jsonOut) error {
	if isSet(r.meta) && !r.meta.IsObject() {
		return invalidParam(reqPath("metadata"), "an object")
	}
	for _, c := range []struct {
		v     gjson.Result
		param string
	}{{r.user, "user"}, {r.safetyID, "safety_identifier"}, {r.meta.Get("user_id"), "metadata.user_id"}} {
		if !isSet(c.v) {
			continue
		}
		if c.v.Type != gjson.String {
			return invalidParam(reqPath(c.param), "a string")
		}
		if c.v.Str == "" {
			continue
		}
		w.key("metadata")
		w.obj()
		w.key("user_id")
		w.rawStr(c.v)
		w.endObj()
		return nil
	}
	return nil
}
