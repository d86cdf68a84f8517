package translate

import (
	"strconv"

	"github.com/tidwall/gjson"
)

const toChat = "an OpenAI-compatible model"

// messagesRequest holds the top-level fields of an Anthropic Messages
// request.
type messagesRequest struct {
	model, messages, maxTokens, system, metadata, stop, stream gjson.Result
	temperature, topP, tools, toolChoice, thinking             gjson.Result
	serviceTier, outputFormat, outputConfig                    gjson.Result
}

// MessagesToChatRequest translates an Anthropic Messages request into an
// OpenAI chat completions request.
//
// The system prompt becomes one system message per text block; a user
// turn's tool_result blocks become tool messages placed before the rest of
// that turn; max_tokens becomes max_completion_tokens; thinking becomes
// reasoning_effort (see budgetToChatEffort); a streamed request asks for
// the final usage chunk (stream_options.include_usage). cache_control hints
// and prior thinking blocks are not sent (OpenAI caches prefixes by itself
// and takes no prior reasoning); everything else is mapped or rejected with
// an *Error naming the field (see UNSUPPORTED.md).
func MessagesToChatRequest(messages []byte) (chat []byte, err error) {
	root, err := parseRequestObject(messages)
	if err != nil {
		return nil, err
	}
	var r messagesRequest
	if err := r.collect(root); err != nil {
		return nil, err
	}
	if err := checkModelAndMessages(r.model, r.messages); err != nil {
		return nil, err
	}
	effort, err := r.effort()
	if err != nil {
		return nil, err
	}

	w := jsonOut{b: make([]byte, 0, len(messages)+256)}
	w.obj()
	w.key("model")
	w.rawStr(r.model)
	w.key("messages")
	w.arr()
	if err := writeChatSystem(&w, r.system); err != nil {
		return nil, err
	}
	i := -1
	r.messages.ForEach(func(_, m gjson.Result) bool {
		i++
		err = writeChatMessage(&w, m, reqPath("messages").at(i))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	w.endArr()
	if isSet(r.maxTokens) {
		n, err := positiveInt(r.maxTokens, "max_tokens")
		if err != nil {
			return nil, err
		}
		w.keyInt("max_completion_tokens", n)
	}
	for _, f := range []struct {
		name string
		v    gjson.Result
	}{{"temperature", r.temperature}, {"top_p", r.topP}} {
		if isSet(f.v) {
			if f.v.Type != gjson.Number {
				return nil, invalidParam(reqPath(f.name), "a number")
			}
			w.keyRaw(f.name, f.v.Raw)
		}
	}
	if isSet(r.stop) {
		if !r.stop.IsArray() {
			return nil, invalidParam(reqPath("stop_sequences"), "an array of strings")
		}
		w.key("stop")
		w.arr()
		r.stop.ForEach(func(_, s gjson.Result) bool {
			if s.Type != gjson.String {
				err = invalidParam(reqPath("stop_sequences"), "an array of strings")
			}
			w.rawStr(s)
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		w.endArr()
	}
	if isSet(r.stream) {
		if r.stream.Type != gjson.True && r.stream.Type != gjson.False {
			return nil, invalidParam(reqPath("stream"), "a boolean")
		}
		w.keyRaw("stream", r.stream.Raw)
		if r.stream.Type == gjson.True {
			// Anthropic clients always get usage; ask for it.
			w.keyRaw("stream_options", `{"include_usage":true}`)
		}
	}
	if err := r.writeUser(&w); err != nil {
		return nil, err
	}
	if err := r.writeChatTools(&w); err != nil {
		return nil, err
	}
	if effort != "" {
		w.keyStr("reasoning_effort", effort)
	}
	if err := r.writeResponseFormat(&w); err != nil {
		return nil, err
	}
	if isSet(r.serviceTier) {
		switch r.serviceTier.Str {
		case "auto":
			w.keyStr("service_tier", "auto")
		case "standard_only":
			w.keyStr("service_tier", "default")
		default:
			return nil, invalidParam(reqPath("service_tier"), `"auto" or "standard_only"`)
		}
	}
	w.endObj()
	return w.b, nil
}

// collect sorts the request's fields, rejecting those the chat API cannot
// express. A null value counts as absent.
func (r *messagesRequest) collect(root gjson.Result) error {
	var err error
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "model":
			r.model = v
		case "messages":
			r.messages = v
		case "max_tokens":
			r.maxTokens = v
		case "system":
			r.system = v
		case "metadata":
			r.metadata = v
		case "stop_sequences":
			r.stop = v
		case "stream":
			r.stream = v
		case "temperature":
			r.temperature = v
		case "top_p":
			r.topP = v
		case "tools":
			r.tools = v
		case "tool_choice":
			r.toolChoice = v
		case "thinking":
			r.thinking = v
		case "service_tier":
			r.serviceTier = v
		case "output_format":
			r.outputFormat = v
		case "output_config":
			r.outputConfig = v
		case "top_k":
			if isSet(v) {
				err = cannotExpress(reqPath("top_k"), toChat, "OpenAI has no top-k sampling")
			}
		case "context_management":
			// Server-side clearing of old tool results and thinking, an
			// optimisation: without it the full context is sent.
		case "container", "mcp_servers":
			if isSet(v) {
				err = cannotExpress(reqPath(k.Str), toChat, "an Anthropic platform feature")
			}
		default:
			err = &Error{Message: "unknown or unsupported request field " + strconv.Quote(k.Str) +
				" for " + toChat, Param: k.Str}
		}
		return err == nil
	})
	return err
}

// effort derives reasoning_effort from output_config.effort, else from the
// thinking budget.
func (r *messagesRequest) effort() (string, error) {
	if isSet(r.outputConfig) {
		if !r.outputConfig.IsObject() {
			return "", invalidParam(reqPath("output_config"), "an object")
		}
		var err error
		r.outputConfig.ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "effort" && k.Str != "format" {
				err = &Error{Message: "unknown or unsupported request field output_config." + k.Str + " for " + toChat,
					Param: "output_config." + k.Str}
			}
			return err == nil
		})
		if err != nil {
			return "", err
		}
		if e := r.outputConfig.Get("effort"); isSet(e) {
			switch e.Str {
			case "low", "medium", "high":
				return e.Str, nil
			}
			return "", invalidParam(reqPath("output_config.effort"), `"low", "medium" or "high"`)
		}
	}
	if !isSet(r.thinking) {
		return "", nil
	}
	switch r.thinking.Get("type").Str {
	case "enabled":
		b := r.thinking.Get("budget_tokens")
		if b.Type != gjson.Number {
			return "", invalidParam(reqPath("thinking.budget_tokens"), "an integer")
		}
		return budgetToChatEffort(b.Int()), nil
	case "disabled", "adaptive":
		// The upstream model's default.
		return "", nil
	default:
		return "", invalidParam(reqPath("thinking.type"), `"enabled", "disabled" or "adaptive"`)
	}
}

// writeUser writes metadata.user_id as user.
func (r *messagesRequest) writeUser(w *jsonOut) error {
	if !isSet(r.metadata) {
		return nil
	}
	if !r.metadata.IsObject() {
		return invalidParam(reqPath("metadata"), "an object")
	}
	var err error
	r.metadata.ForEach(func(k, v gjson.Result) bool {
		if k.Str != "user_id" {
			err = &Error{Message: "unknown metadata field " + strconv.Quote(k.Str), Param: "metadata." + k.Str}
			return false
		}
		if !isSet(v) {
			return true
		}
		if v.Type != gjson.String {
			err = invalidParam(reqPath("metadata.user_id"), "a string")
			return false
		}
		w.key("user")
		w.rawStr(v)
		return true
	})
	return err
}

// writeResponseFormat writes output_format (or output_config.format) as a
// json_schema response_format.
func (r *messagesRequest) writeResponseFormat(w *jsonOut) error {
	f, param := r.outputFormat, "output_format"
	if cf := r.outputConfig.Get("format"); isSet(cf) {
		f, param = cf, "output_config.format"
	}
	if !isSet(f) {
		return nil
	}
	if f.Get("type").Str != "json_schema" || !f.Get("schema").IsObject() {
		return invalidParam(reqPath(param), `{"type":"json_schema","schema":{...}}`)
	}
	w.key("response_format")
	w.obj()
	w.keyStr("type", "json_schema")
	w.key("json_schema")
	w.obj()
	w.keyStr("name", "response")
	w.keyRaw("schema", f.Get("schema").Raw)
	w.key("strict")
	w.boolean(true)
	w.endObj()
	w.endObj()
	return nil
}
