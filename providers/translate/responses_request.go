package translate

import (
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// respRequest holds the top-level fields of a Responses request that the
// translation reads. A field the client left out or set to null is the
// zero gjson.Result (Exists reports false).
type respRequest struct {
	model, input, instructions, tools, toolChoice, parallelToolCalls gjson.Result
	maxOutputTokens, temperature, topP, frequencyPenalty             gjson.Result
	presencePenalty, user, metadata, stream, text, reasoning         gjson.Result
	promptCacheKey, safetyIdentifier, serviceTier                    gjson.Result
	maxToolCalls, promptCacheRetention                               gjson.Result // echoed only
}

// respIgnored lists top-level Responses parameters that are accepted and
// dropped because leaving them out cannot change the answer a Chat
// Completions upstream gives (UNSUPPORTED_RESPONSES.md says why for each).
var respIgnored = map[string]bool{
	"store":                  true,
	"include":                true,
	"truncation":             true,
	"max_tool_calls":         true,
	"top_logprobs":           true,
	"stream_options":         true,
	"prompt_cache_retention": true,
	"prompt_cache_options":   true,
	"context_management":     true,
}

// respRejected maps top-level Responses parameters that need state or
// services a Chat Completions upstream does not have to the reason given
// to the client. They are rejected only when set to a non-null value.
var respRejected = map[string]string{
	"previous_response_id": "previous_response_id is not supported for this model: the gateway keeps no server-side response state; send the whole conversation in input",
	"conversation":         "conversation is not supported for this model: the gateway keeps no server-side conversation state; send the whole conversation in input",
	"prompt":               "prompt (stored prompt templates) is not supported for this model; send instructions and input instead",
	"moderation":           "moderation is not supported for this model",
	"access_programs":      "access_programs is not supported for this model",
}

// ResponsesToChatRequest translates an OpenAI Responses API request body
// (POST /v1/responses) into an equivalent Chat Completions request body.
// A feature that Chat Completions cannot express is reported as an *Error
// naming the offending parameter; parameters that do not change the answer
// are dropped (see UNSUPPORTED_RESPONSES.md). A streamed request asks the
// upstream for a usage chunk (stream_options.include_usage).
func ResponsesToChatRequest(resp []byte) (chat []byte, err error) {
	if !gjson.ValidBytes(resp) {
		return nil, &Error{Message: "request body is not valid JSON"}
	}
	// The body is read in place rather than copied into a string: the
	// output copies what it keeps, and error fields are cloned.
	root := gjson.Parse(unsafe.String(unsafe.SliceData(resp), len(resp)))
	if !root.IsObject() {
		return nil, &Error{Message: "request body must be a JSON object"}
	}
	var r respRequest
	if err := r.read(root, true); err != nil {
		return nil, err
	}
	if err := r.check(); err != nil {
		return nil, err
	}

	w := respWriter{buf: make([]byte, 0, len(resp)+len(resp)/4+64)}
	w.obj()
	w.key("model")
	w.raw(r.model.Raw)
	if err := respWriteMessages(&w, r.instructions, r.input); err != nil {
		return nil, err
	}
	nTools, err := respWriteTools(&w, r.tools)
	if err != nil {
		return nil, err
	}
	if err := respWriteToolChoice(&w, r.toolChoice, nTools); err != nil {
		return nil, err
	}
	if r.parallelToolCalls.Exists() && nTools > 0 {
		// OpenAI refuses parallel_tool_calls without tools.
		w.key("parallel_tool_calls")
		w.raw(r.parallelToolCalls.Raw)
	}
	if err := respWriteText(&w, r.text); err != nil {
		return nil, err
	}
	if err := respWriteReasoning(&w, r.reasoning); err != nil {
		return nil, err
	}
	respCopy(&w, "max_completion_tokens", r.maxOutputTokens)
	respCopy(&w, "temperature", r.temperature)
	respCopy(&w, "top_p", r.topP)
	respCopy(&w, "frequency_penalty", r.frequencyPenalty)
	respCopy(&w, "presence_penalty", r.presencePenalty)
	respCopy(&w, "user", r.user)
	// metadata is not forwarded: OpenAI's Chat Completions refuses it
	// unless the completion is stored, and it cannot change the answer. The
	// response echoes it.
	respCopy(&w, "prompt_cache_key", r.promptCacheKey)
	respCopy(&w, "safety_identifier", r.safetyIdentifier)
	respCopy(&w, "service_tier", r.serviceTier)
	if r.stream.Type == gjson.True {
		w.key("stream")
		w.bool(true)
		w.key("stream_options")
		w.raw(`{"include_usage":true}`)
	}
	w.endObj()
	return w.buf, nil
}

// read sorts the top-level fields into r in one pass. When strict, it
// refuses unknown and stateful parameters.
func (r *respRequest) read(root gjson.Result, strict bool) error {
	var err error
	root.ForEach(func(k, v gjson.Result) bool {
		if v.Type == gjson.Null {
			return true
		}
		switch k.Str {
		case "model":
			r.model = v
		case "input":
			r.input = v
		case "instructions":
			r.instructions = v
		case "tools":
			r.tools = v
		case "tool_choice":
			r.toolChoice = v
		case "parallel_tool_calls":
			r.parallelToolCalls = v
		case "max_output_tokens":
			r.maxOutputTokens = v
		case "temperature":
			r.temperature = v
		case "top_p":
			r.topP = v
		case "frequency_penalty":
			r.frequencyPenalty = v
		case "presence_penalty":
			r.presencePenalty = v
		case "user":
			r.user = v
		case "metadata":
			r.metadata = v
		case "stream":
			r.stream = v
		case "text":
			r.text = v
		case "reasoning":
			r.reasoning = v
		case "prompt_cache_key":
			r.promptCacheKey = v
		case "safety_identifier":
			r.safetyIdentifier = v
		case "service_tier":
			r.serviceTier = v
		case "max_tool_calls":
			r.maxToolCalls = v
		case "prompt_cache_retention":
			r.promptCacheRetention = v
		case "background":
			if !strict {
				return true
			}
			if v.Type == gjson.True {
				err = &Error{Message: "background responses are not supported for this model; send the request without background and keep the connection open (stream: true for long answers)", Param: "background"}
			} else if v.Type != gjson.False {
				err = respTypeError("background", "a boolean")
			}
		default:
			if !strict {
				return true
			}
			if msg, ok := respRejected[k.Str]; ok {
				if v.Type == gjson.String && v.Str == "" {
					return true
				}
				err = &Error{Message: msg, Param: strings.Clone(k.Str)}
			} else if !respIgnored[k.Str] {
				err = &Error{Message: "Unknown parameter: '" + k.Str + "'.", Param: strings.Clone(k.Str)}
			}
		}
		return err == nil
	})
	return err
}

// check validates the JSON types of the fields copied verbatim, so the
// upstream never sees a value the Responses API itself would refuse.
func (r *respRequest) check() error {
	if r.model.Type != gjson.String || r.model.Str == "" {
		if !r.model.Exists() {
			return &Error{Message: "Missing required parameter: 'model'.", Param: "model"}
		}
		return respTypeError("model", "a non-empty string")
	}
	checks := [...]struct {
		v     gjson.Result
		param string
		want  gjson.Type
	}{
		{r.maxOutputTokens, "max_output_tokens", gjson.Number},
		{r.temperature, "temperature", gjson.Number},
		{r.topP, "top_p", gjson.Number},
		{r.frequencyPenalty, "frequency_penalty", gjson.Number},
		{r.presencePenalty, "presence_penalty", gjson.Number},
		{r.user, "user", gjson.String},
		{r.promptCacheKey, "prompt_cache_key", gjson.String},
		{r.safetyIdentifier, "safety_identifier", gjson.String},
		{r.serviceTier, "service_tier", gjson.String},
		{r.instructions, "instructions", gjson.String},
	}
	for _, c := range checks {
		if c.v.Exists() && c.v.Type != c.want {
			return respTypeError(c.param, respTypeName(c.want))
		}
	}
	for _, c := range [...]struct {
		v     gjson.Result
		param string
	}{{r.stream, "stream"}, {r.parallelToolCalls, "parallel_tool_calls"}} {
		if c.v.Exists() && c.v.Type != gjson.True && c.v.Type != gjson.False {
			return respTypeError(c.param, "a boolean")
		}
	}
	if r.metadata.Exists() && !r.metadata.IsObject() {
		return respTypeError("metadata", "an object")
	}
	if r.maxOutputTokens.Exists() && r.maxOutputTokens.Int() < 1 {
		return &Error{Message: "Invalid 'max_output_tokens': must be at least 1, got " + r.maxOutputTokens.Raw + ".", Param: "max_output_tokens"}
	}
	if !r.input.Exists() {
		return &Error{Message: "Missing required parameter: 'input'.", Param: "input"}
	}
	return nil
}

// respCopy writes key with v's raw value when v is set.
func respCopy(w *respWriter, key string, v gjson.Result) {
	if v.Exists() {
		w.key(key)
		w.raw(v.Raw)
	}
}

func respTypeError(param, want string) *Error {
	return &Error{Message: "Invalid type for '" + param + "': expected " + want + ".", Param: param}
}

func respTypeName(t gjson.Type) string {
	switch t {
	case gjson.Number:
		return "a number"
	case gjson.String:
		return "a string"
	}
	return "a " + t.String()
}

// respIndex returns param + "[" + i + "]".
func respIndex(param string, i int) string {
	return param + "[" + strconv.Itoa(i) + "]"
}
