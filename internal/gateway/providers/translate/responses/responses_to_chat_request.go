package responses

import (
	"encoding/json"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// request holds the top-level fields of a Responses request that the
// translation reads. A field the client left out or set to null is the
// zero gjson.Result (Exists reports false).
type request struct {
	model, input, instructions, tools, toolChoice, parallelToolCalls gjson.Result
	maxOutputTokens, temperature, topP, frequencyPenalty             gjson.Result
	presencePenalty, user, metadata, stream, text, reasoning         gjson.Result
	promptCacheKey, safetyIdentifier, serviceTier                    gjson.Result
	maxToolCalls, promptCacheRetention                               gjson.Result // echoed only
}

// ignored lists top-level Responses parameters that are accepted and
// dropped because leaving them out cannot change the answer a Chat
// Completions upstream gives (UNSUPPORTED.md says why for each).
var ignored = map[string]bool{
	"store":                  true,
	"include":                true,
	"truncation":             true,
	"max_tool_calls":         true,
	"top_logprobs":           true,
	"stream_options":         true,
	"prompt_cache_retention": true,
	"prompt_cache_options":   true,
	"context_management":     true,
	"client_metadata":        true,
}

// rejected maps top-level Responses parameters that need state or
// services a Chat Completions upstream does not have to the reason given
// to the client. They are rejected only when set to a non-null value.
var rejected = map[string]string{
	"previous_response_id": "previous_response_id is not supported for this model: the gateway keeps no server-side response state; send the whole conversation in input",
	"conversation":         "conversation is not supported for this model: the gateway keeps no server-side conversation state; send the whole conversation in input",
	"prompt":               "prompt (stored prompt templates) is not supported for this model; send instructions and input instead",
	"moderation":           "moderation is not supported for this model",
	"access_programs":      "access_programs is not supported for this model",
}

// toChat names the models a Responses request is translated for, in error
// messages.
const toChat = "a Chat Completions model"

// ResponsesToChatRequest translates an OpenAI Responses API request body
// (POST /v1/responses) into an equivalent Chat Completions request body.
// A feature that Chat Completions cannot express is reported as an *Error
// naming the offending parameter; parameters that do not change the answer
// are dropped (see UNSUPPORTED.md). A streamed request asks the upstream
// for a usage chunk (stream_options.include_usage); target says whether
// the upstream takes that and under which name it takes the output cap.
func ResponsesToChatRequest(resp []byte, target translate.ChatTarget) (chat []byte, err error) {
	chat, _, err = ResponsesToChatRequestRevised(resp, target)
	return chat, err
}

// DroppedToolsRewriter names the revision of a request whose hosted tools
// the target cannot run were left out.
const DroppedToolsRewriter = "drop_unsupported_tools"

// ResponsesToChatRequestRevised is ResponsesToChatRequest that also
// returns the changes it made that the client did not ask for: the hosted
// tools left out (rewriter DroppedToolsRewriter, detail
// {"dropped":[types]}).
func ResponsesToChatRequestRevised(resp []byte, target translate.ChatTarget) (chat []byte, revisions []translate.Revision, err error) {
	// The body is read in place rather than copied into a string: the
	// output copies what it keeps.
	root, err := translate.ParseRequest(resp)
	if err != nil {
		return nil, nil, err
	}
	var r request
	if err := r.read(root, true); err != nil {
		return nil, nil, err
	}
	if err := r.check(); err != nil {
		return nil, nil, err
	}

	w := translate.Writer{Buf: make([]byte, 0, len(resp)+len(resp)/4+64)}
	w.Obj()
	w.Key("model")
	w.Raw(r.model.Raw)
	if err := writeMessages(&w, r.instructions, r.input); err != nil {
		return nil, nil, err
	}
	var dropped []string
	nTools, err := writeTools(&w, r.tools, r.toolChoice, &dropped)
	if err != nil {
		return nil, nil, err
	}
	if err := writeToolChoice(&w, r.toolChoice, nTools); err != nil {
		return nil, nil, err
	}
	if r.parallelToolCalls.Exists() && nTools > 0 {
		// OpenAI refuses parallel_tool_calls without tools.
		w.Key("parallel_tool_calls")
		w.Raw(r.parallelToolCalls.Raw)
	}
	if err := writeText(&w, r.text); err != nil {
		return nil, nil, err
	}
	if err := writeReasoning(&w, r.reasoning); err != nil {
		return nil, nil, err
	}
	copyField(&w, target.MaxTokensField(), r.maxOutputTokens)
	copyField(&w, "temperature", r.temperature)
	copyField(&w, "top_p", r.topP)
	copyField(&w, "frequency_penalty", r.frequencyPenalty)
	copyField(&w, "presence_penalty", r.presencePenalty)
	copyField(&w, "user", r.user)
	// metadata is not forwarded: OpenAI's Chat Completions refuses it
	// unless the completion is stored, and it cannot change the answer. The
	// response echoes it.
	copyField(&w, "prompt_cache_key", r.promptCacheKey)
	copyField(&w, "safety_identifier", r.safetyIdentifier)
	copyField(&w, "service_tier", r.serviceTier)
	if r.stream.Type == gjson.True {
		target.WriteStream(&w)
	}
	w.EndObj()
	if len(dropped) > 0 {
		detail, _ := json.Marshal(struct {
			Dropped []string `json:"dropped"`
		}{dropped})
		revisions = append(revisions, translate.Revision{Rewriter: DroppedToolsRewriter, Detail: string(detail)})
	}
	return w.Buf, revisions, nil
}

// read sorts the top-level fields into r in one pass. When strict, it
// refuses unknown and stateful parameters.
func (r *request) read(root gjson.Result, strict bool) error {
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
				err = translate.Refuse(translate.Param("background"), "background responses are not supported for this model; send the request without background and keep the connection open (stream: true for long answers)")
			} else if v.Type != gjson.False {
				err = translate.Invalid(translate.Param("background"), "a boolean")
			}
		default:
			if !strict {
				return true
			}
			if msg, ok := rejected[k.Str]; ok {
				if v.Type == gjson.String && v.Str == "" {
					return true
				}
				err = translate.Refuse(translate.Param(k.Str), msg)
			} else if !ignored[k.Str] {
				err = translate.Unknown(translate.Param(k.Str), toChat)
			}
		}
		return err == nil
	})
	return err
}

// check validates the JSON types of the fields copied verbatim, so the
// upstream never sees a value the Responses API itself would refuse.
func (r *request) check() error {
	if r.model.Type != gjson.String || r.model.Str == "" {
		if !r.model.Exists() {
			return translate.Missing(translate.Param("model"))
		}
		return translate.Invalid(translate.Param("model"), "a non-empty string")
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
			return translate.Invalid(translate.Param(c.param), typeName(c.want))
		}
	}
	for _, c := range [...]struct {
		v     gjson.Result
		param string
	}{{r.stream, "stream"}, {r.parallelToolCalls, "parallel_tool_calls"}} {
		if c.v.Exists() && c.v.Type != gjson.True && c.v.Type != gjson.False {
			return translate.Invalid(translate.Param(c.param), "a boolean")
		}
	}
	if r.metadata.Exists() && !r.metadata.IsObject() {
		return translate.Invalid(translate.Param("metadata"), "an object")
	}
	if r.maxOutputTokens.Exists() && r.maxOutputTokens.Int() < 1 {
		return translate.Invalid(translate.Param("max_output_tokens"), "a positive integer")
	}
	if !r.input.Exists() {
		return translate.Missing(translate.Param("input"))
	}
	return nil
}

// copyField writes key with v's raw value when v is set.
func copyField(w *translate.Writer, key string, v gjson.Result) {
	if v.Exists() {
		w.Key(key)
		w.Raw(v.Raw)
	}
}

func typeName(t gjson.Type) string {
	switch t {
	case gjson.Number:
		return "a number"
	case gjson.String:
		return "a string"
	}
	return "a " + t.String()
}
