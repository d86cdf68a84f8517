package anthropic

import (
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// writeMessageID writes the id member of a message translated from a chat
// completion. Anthropic message ids start with msg_, so the upstream's id
// takes that prefix in place of OpenAI's chatcmpl- (chatcmpl-abc becomes
// msg_abc, any other id gets msg_ in front); an id that already starts
// with msg_ is kept and a missing one is made up. The mapping is
// deterministic, so the id still leads back to the upstream's logs.
func writeMessageID(w *translate.Writer, id gjson.Result) {
	w.Key("id")
	if id.Type != gjson.String || id.Str == "" {
		w.Str(translate.NewID("msg_"))
		return
	}
	if strings.HasPrefix(id.Str, "msg_") {
		w.RawStr(id)
		return
	}
	w.Sep()
	w.Buf = append(w.Buf, `"msg_`...)
	w.Buf = translate.AppendEscaped(w.Buf, strings.TrimPrefix(id.Str, "chatcmpl-"))
	w.Buf = append(w.Buf, '"')
}
