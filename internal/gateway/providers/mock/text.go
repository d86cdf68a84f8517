package mock

import (
	"strings"

	"github.com/tidwall/gjson"
)

// contentText returns the text of a message "content" value: the string
// itself, or the "text" fields of an array of content parts joined with a
// single space. Anything else (null, images only, ...) gives "".
func contentText(content gjson.Result) string {
	switch {
	case content.Type == gjson.String:
		return content.Str
	case content.IsArray():
		var texts []string
		content.ForEach(func(_, part gjson.Result) bool {
			if t := part.Get("text"); t.Type == gjson.String {
				texts = append(texts, t.Str)
			}
			return true
		})
		return strings.Join(texts, " ")
	}
	return ""
}

// lastUserText returns the text of the last message with role "user", or
// "" when there is none.
func lastUserText(messages []message) string {
	for i := len(messages) - 1; i >= 0; i-- {
		if messages[i].role == "user" {
			return contentText(messages[i].content)
		}
	}
	return ""
}
