package anthropic

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

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
