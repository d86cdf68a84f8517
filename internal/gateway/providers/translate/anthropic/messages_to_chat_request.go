package anthropic

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

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
// max_tokens is required, as on Anthropic's API, whatever the upstream
// (see requiredMaxTokens).
// The system prompt becomes one system message per text block; a user
// turn's tool_result blocks become tool messages placed before the rest of
// that turn; max_tokens becomes max_completion_tokens; thinking becomes
// reasoning_effort (see budgetToChatEffort); a streamed request asks for
// the final usage chunk (stream_options.include_usage). target says which
// of these the upstream takes under another name or not at all (see
// translate.ChatTarget). cache_control hints
// and prior thinking blocks are not sent (OpenAI caches prefixes by itself
// and takes no prior reasoning); everything else is mapped or rejected with
// an *Error naming the field (see UNSUPPORTED.md).
func MessagesToChatRequest(messages []byte, target translate.ChatTarget) (chat []byte, err error) {
	w, err := messagesToChat(messages, target, 0)
	if err != nil {
		return nil, err
	}
	return w.Buf, nil
}

// MessagesToChatRequestParts is MessagesToChatRequest with the long
// strings (translate.BorrowMin) left where they are in messages: the
// request is returned as consecutive parts, some of which point into
// messages, which must stay unchanged while they are in use. A large
// prompt is then not held twice while the upstream call is made.
func MessagesToChatRequestParts(messages []byte, target translate.ChatTarget) ([][]byte, error) {
	w, err := messagesToChat(messages, target, borrowMin)
	if err != nil {
		return nil, err
	}
	return w.Parts(), nil
}

// borrowMin is the length from which MessagesToChatRequestParts leaves a
// string in the client's body; tests lower it.
var borrowMin = translate.BorrowMin

// messagesToChat writes the translated request, keeping strings of borrow
// bytes or more by reference when borrow is above 0
// (translate.Writer.Borrow).
func messagesToChat(messages []byte, target translate.ChatTarget, borrow int) (*translate.Writer, error) {
	root, err := translate.ParseRequest(messages)
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
	maxTokens, err := requiredMaxTokens(r.maxTokens)
	if err != nil {
		return nil, err
	}
	effort, err := r.effort()
	if err != nil {
		return nil, err
	}

	size := len(messages) + 256
	if borrow > 0 {
		size = min(size, 2048)
	}
	w := &translate.Writer{Buf: make([]byte, 0, size), Borrow: borrow}
	w.Obj()
	w.Key("model")
	w.RawStr(r.model)
	w.Key("messages")
	w.Arr()
	if err := writeChatSystem(w, r.system); err != nil {
		return nil, err
	}
	i := -1
	r.messages.ForEach(func(_, m gjson.Result) bool {
		i++
		err = writeChatMessage(w, m, translate.Param("messages").At(i))
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	w.EndArr()
	w.KeyInt(target.MaxTokensField(), maxTokens)
	for _, f := range []struct {
		name string
		v    gjson.Result
	}{{"temperature", r.temperature}, {"top_p", r.topP}} {
		if translate.IsSet(f.v) {
			if f.v.Type != gjson.Number {
				return nil, translate.Invalid(translate.Param(f.name), "a number")
			}
			w.KeyRaw(f.name, f.v.Raw)
		}
	}
	if translate.IsSet(r.stop) {
		if !r.stop.IsArray() {
			return nil, translate.Invalid(translate.Param("stop_sequences"), "an array of strings")
		}
		w.Key("stop")
		w.Arr()
		r.stop.ForEach(func(_, s gjson.Result) bool {
			if s.Type != gjson.String {
				err = translate.Invalid(translate.Param("stop_sequences"), "an array of strings")
			}
			w.RawStr(s)
			return err == nil
		})
		if err != nil {
			return nil, err
		}
		w.EndArr()
	}
	if translate.IsSet(r.stream) {
		if r.stream.Type != gjson.True && r.stream.Type != gjson.False {
			return nil, translate.Invalid(translate.Param("stream"), "a boolean")
		}
		if r.stream.Type == gjson.True {
			// Anthropic clients always get usage; ask for it.
			target.WriteStream(w)
		} else {
			w.KeyRaw("stream", r.stream.Raw)
		}
	}
	if err := r.writeUser(w); err != nil {
		return nil, err
	}
	if err := r.writeChatTools(w); err != nil {
		return nil, err
	}
	if effort != "" {
		w.KeyStr("reasoning_effort", effort)
	}
	if err := r.writeResponseFormat(w); err != nil {
		return nil, err
	}
	if translate.IsSet(r.serviceTier) {
		switch r.serviceTier.Str {
		case "auto":
			w.KeyStr("service_tier", "auto")
		case "standard_only":
			w.KeyStr("service_tier", "default")
		default:
			return nil, translate.Invalid(translate.Param("service_tier"), `"auto" or "standard_only"`)
		}
	}
	w.EndObj()
	return w, nil
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
			if translate.IsSet(v) {
				err = translate.CannotExpress(translate.Param("top_k"), toChat, "OpenAI has no top-k sampling")
			}
		case "context_management":
			// Server-side clearing of old tool results and thinking, an
			// optimisation: without it the full context is sent.
		case "container", "mcp_servers":
			if translate.IsSet(v) {
				err = translate.CannotExpress(translate.Param(k.Str), toChat, "an Anthropic platform feature")
			}
		default:
			err = translate.Unknown(translate.Param(k.Str), toChat)
		}
		return err == nil
	})
	return err
}

// effort derives reasoning_effort from output_config.effort, else from the
// thinking budget.
func (r *messagesRequest) effort() (string, error) {
	if translate.IsSet(r.outputConfig) {
		if !r.outputConfig.IsObject() {
			return "", translate.Invalid(translate.Param("output_config"), "an object")
		}
		var err error
		r.outputConfig.ForEach(func(k, _ gjson.Result) bool {
			if k.Str != "effort" && k.Str != "format" {
				err = translate.Unknown(translate.Param("output_config").Key(k.Str), toChat)
			}
			return err == nil
		})
		if err != nil {
			return "", err
		}
		if e := r.outputConfig.Get("effort"); translate.IsSet(e) {
			switch e.Str {
			case "low", "medium", "high":
				return e.Str, nil
			}
			return "", translate.Invalid(translate.Param("output_config.effort"), `"low", "medium" or "high"`)
		}
	}
	if !translate.IsSet(r.thinking) {
		return "", nil
	}
	switch r.thinking.Get("type").Str {
	case "enabled":
		b := r.thinking.Get("budget_tokens")
		if b.Type != gjson.Number {
			return "", translate.Invalid(translate.Param("thinking.budget_tokens"), "an integer")
		}
		return budgetToChatEffort(b.Int()), nil
	case "disabled", "adaptive":
		// The upstream model's default.
		return "", nil
	default:
		return "", translate.Invalid(translate.Param("thinking.type"), `"enabled", "disabled" or "adaptive"`)
	}
}

// writeUser writes metadata.user_id as user.
func (r *messagesRequest) writeUser(w *translate.Writer) error {
	if !translate.IsSet(r.metadata) {
		return nil
	}
	if !r.metadata.IsObject() {
		return translate.Invalid(translate.Param("metadata"), "an object")
	}
	var err error
	r.metadata.ForEach(func(k, v gjson.Result) bool {
		if k.Str != "user_id" {
			err = translate.Unknown(translate.Param("metadata").Key(k.Str), toChat)
			return false
		}
		if !translate.IsSet(v) {
			return true
		}
		if v.Type != gjson.String {
			err = translate.Invalid(translate.Param("metadata.user_id"), "a string")
			return false
		}
		w.Key("user")
		w.RawStr(v)
		return true
	})
	return err
}

// writeResponseFormat writes output_format (or output_config.format) as a
// json_schema response_format.
func (r *messagesRequest) writeResponseFormat(w *translate.Writer) error {
	f, param := r.outputFormat, "output_format"
	if cf := r.outputConfig.Get("format"); translate.IsSet(cf) {
		f, param = cf, "output_config.format"
	}
	if !translate.IsSet(f) {
		return nil
	}
	if f.Get("type").Str != "json_schema" || !f.Get("schema").IsObject() {
		return translate.Invalid(translate.Param(param), `{"type":"json_schema","schema":{...}}`)
	}
	w.Key("response_format")
	w.Obj()
	w.KeyStr("type", "json_schema")
	w.Key("json_schema")
	w.Obj()
	w.KeyStr("name", "response")
	w.KeyRaw("schema", f.Get("schema").Raw)
	w.Key("strict")
	w.Bool(true)
	w.EndObj()
	w.EndObj()
	return nil
}

// The kinds of model a request is translated for, as error messages name
// them.
const (
	toChat      = "an OpenAI-compatible model"
	toAnthropic = "an Anthropic model"
)

// positiveInt reads a positive integer field.
func positiveInt(v gjson.Result, param string) (int64, error) {
	if v.Type != gjson.Number || v.Num != float64(int64(v.Num)) || v.Num < 1 {
		return 0, translate.Invalid(translate.Param(param), "a positive integer")
	}
	return int64(v.Num), nil
}

// requiredMaxTokens reads the max_tokens of a Messages request, which
// Anthropic's API requires: a request without it is refused with
// Anthropic's own wording ("max_tokens: Field required", code
// missing_required_parameter), one whose value is not a positive integer
// as invalid.
func requiredMaxTokens(v gjson.Result) (int64, error) {
	if !v.Exists() {
		return 0, &translate.Error{Message: "max_tokens: Field required", Param: "max_tokens",
			Code: translate.CodeMissingParameter}
	}
	return positiveInt(v, "max_tokens")
}

// splitDataURL splits a "data:MEDIA[;params];base64,DATA" URL. ok is false when
// url is not a base64 data URL.
func splitDataURL(url string) (media, data string, ok bool) {
	rest, found := strings.CutPrefix(url, "data:")
	if !found {
		return "", "", false
	}
	header, data, found := strings.Cut(rest, ",")
	if !found {
		return "", "", false
	}
	params := strings.Split(header, ";")
	if len(params) < 2 || params[len(params)-1] != "base64" {
		return "", "", false
	}
	media = strings.ToLower(strings.TrimSpace(params[0]))
	if media == "image/jpg" {
		media = "image/jpeg"
	}
	return media, data, true
}

// stringOrTextParts collects the text of a content field that is either a
// string or an array of {"type":"text","text":...} parts, calling fn with
// each text value (as a gjson string) and the part itself (the zero Result
// for a plain string). It rejects other part types.
func stringOrTextParts(content gjson.Result, param translate.Path, fn func(text, part gjson.Result)) error {
	switch {
	case content.Type == gjson.String:
		fn(content, gjson.Result{})
		return nil
	case content.IsArray():
		var err error
		i := 0
		content.ForEach(func(_, part gjson.Result) bool {
			p := param.At(i)
			i++
			if t := part.Get("type").Str; t != "text" {
				err = translate.Refuse(p.Key("type"), "content part type "+strconv.Quote(t)+
					" is not allowed here; only text parts are")
				return false
			}
			text := part.Get("text")
			if text.Type != gjson.String {
				err = translate.Invalid(p.Key("text"), "a string")
				return false
			}
			fn(text, part)
			return true
		})
		return err
	default:
		return translate.Invalid(param, "a string or an array of text parts")
	}
}

// checkModelAndMessages checks the two fields every chat or messages
// request needs: a non-empty model string and a messages array.
func checkModelAndMessages(model, messages gjson.Result) error {
	if model.Type != gjson.String || model.Str == "" {
		return translate.Invalid(translate.Param("model"), "a non-empty string")
	}
	if !messages.IsArray() {
		return translate.Invalid(translate.Param("messages"), "an array of messages")
	}
	return nil
}
