package responses

import (
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// echo is the part of a response object that repeats the request's
// settings, rendered once per request as comma-separated "key":value
// fragments. The values are what the gateway actually applied: settings
// it drops are echoed as the behaviour the client gets (store false,
// truncation disabled, top_logprobs 0), unset sampling parameters as null
// because the upstream's default is not known.
type echo struct {
	model []byte     // the requested model (raw JSON), used when the upstream names none
	tier  []byte     // the requested service_tier (raw JSON), or nil
	head  []byte     // frequency_penalty .. max_tool_calls (before "model")
	mid   []byte     // parallel_tool_calls .. truncation (after "output", before "service_tier")
	tail  []byte     // user, metadata (after "usage")
	ns    namespaced // the request's namespaced tools by qualified name, or nil
	id    string     // the response id the gateway gives it (Stored.ID), "" to derive one
}

// Stored is how the gateway keeps a translated response: the id it gives
// it and the previous response it continues. The response object then
// says store true and names that previous_response_id.
type Stored struct {
	// ID is the response id, resp_ and the random part that the ids of
	// its output items share.
	ID string
	// PreviousID is the previous_response_id the request continued, ""
	// for none.
	PreviousID string
}

// newEchoStored renders the echo of the request req for a response the
// gateway keeps as st says; nil keeps nothing.
func newEchoStored(req []byte, st *Stored) echo {
	var r request
	// Every value kept is copied into the fragments, so req is read in
	// place.
	_ = r.read(translate.ParseBorrowed(req), false)
	// One buffer holds the model, the tier and the three fragments.
	w := translate.Writer{Buf: make([]byte, 0, 640+len(r.model.Raw)+len(r.instructions.Raw)+len(r.tools.Raw)+len(r.text.Raw)+len(r.metadata.Raw))}
	w.Buf = append(w.Buf, r.model.Raw...)
	if r.model.Type != gjson.String {
		w.Buf = w.Buf[:0]
	}
	n := len(w.Buf)
	if r.serviceTier.Type == gjson.String {
		w.Buf = append(w.Buf, r.serviceTier.Raw...)
	}
	var e echo
	e.model, e.tier = w.Buf[:n:n], w.Buf[n:len(w.Buf):len(w.Buf)]
	if len(e.model) == 0 {
		e.model = nil
	}
	if len(e.tier) == 0 {
		e.tier = nil
	}

	start := len(w.Buf)
	w.Key("frequency_penalty")
	w.RawOr(r.frequencyPenalty, "0.0")
	w.Key("instructions")
	w.RawOrNull(r.instructions)
	w.Key("max_output_tokens")
	w.RawOrNull(r.maxOutputTokens)
	w.Key("max_tool_calls")
	w.RawOrNull(r.maxToolCalls)
	e.head = w.Buf[start:len(w.Buf):len(w.Buf)]

	start = len(w.Buf)
	w.Members()
	w.Key("parallel_tool_calls")
	w.RawOr(r.parallelToolCalls, "true")
	w.Key("presence_penalty")
	w.RawOr(r.presencePenalty, "0.0")
	w.Key("previous_response_id")
	if st != nil && st.PreviousID != "" {
		w.Str(st.PreviousID)
	} else {
		w.Null()
	}
	w.Key("prompt_cache_key")
	w.RawOrNull(r.promptCacheKey)
	w.Key("prompt_cache_retention")
	w.RawOrNull(r.promptCacheRetention)
	w.Key("reasoning")
	w.Obj()
	w.Key("effort")
	w.RawOrNull(translate.NonNull(r.reasoning.Get("effort")))
	w.Key("summary") // not produced: Chat upstreams return raw reasoning text, not summaries
	w.Null()
	w.EndObj()
	w.Key("safety_identifier")
	w.RawOrNull(r.safetyIdentifier)
	w.Key("store") // without st nothing is stored: GET /v1/responses/{id} cannot find it
	w.Bool(st != nil)
	w.Key("temperature")
	w.RawOrNull(r.temperature)
	w.Key("text")
	w.Obj()
	w.Key("format")
	if f := r.text.Get("format"); f.IsObject() {
		w.Raw(f.Raw)
	} else {
		w.Raw(`{"type":"text"}`)
	}
	w.Key("verbosity") // forwarded when set; otherwise the upstream's own default applies
	w.RawOrNull(translate.NonNull(r.text.Get("verbosity")))
	w.EndObj()
	w.Key("tool_choice")
	w.RawOr(r.toolChoice, `"auto"`)
	w.Key("tools")
	w.RawOr(r.tools, "[]")
	w.Key("top_logprobs")
	w.Int(0)
	w.Key("top_p")
	w.RawOrNull(r.topP)
	w.Key("truncation")
	w.Str("disabled")
	e.mid = w.Buf[start:len(w.Buf):len(w.Buf)]

	start = len(w.Buf)
	w.Members()
	w.Key("user")
	w.RawOrNull(r.user)
	w.Key("metadata")
	w.RawOr(r.metadata, "{}")
	e.tail = w.Buf[start:len(w.Buf):len(w.Buf)]
	if r.tools.IsArray() && strings.Contains(r.tools.Raw, `"namespace"`) {
		// req is borrowed: the names are copied.
		e.ns = namespaces(gjson.Parse(strings.Clone(r.tools.Raw)))
	}
	if st != nil {
		e.id = st.ID
	}
	return e
}

// head is the per-response state shared by the non-streaming and
// streaming translations.
type head struct {
	echo      echo
	suffix    []byte // the upstream id without its "chatcmpl-" prefix, JSON-escaped; item ids derive from it
	model     []byte // raw JSON string
	tier      []byte // raw JSON string
	createdAt int64
}

// setID derives the id suffix from the id the gateway gave the response
// (Stored.ID), else from the upstream's chat completion id, or makes a
// random one when the upstream sent none.
func (h *head) setID(chatID string) {
	if h.echo.id != "" {
		h.suffix = translate.AppendEscaped(nil, strings.TrimPrefix(h.echo.id, "resp_"))
		return
	}
	s := strings.TrimPrefix(chatID, "chatcmpl-")
	if s == "" {
		s = translate.RandomHex(16)
	}
	h.suffix = translate.AppendEscaped(nil, s)
}

// writeID writes prefix + suffix (+ "_" + n when n >= 0) as a string.
func (h *head) writeID(w *translate.Writer, prefix string, n int) {
	w.Sep()
	w.Buf = append(w.Buf, '"')
	w.Buf = append(w.Buf, prefix...)
	w.Buf = append(w.Buf, h.suffix...)
	if n >= 0 {
		w.Buf = append(w.Buf, '_')
		w.Buf = strconv.AppendInt(w.Buf, int64(n), 10)
	}
	w.Buf = append(w.Buf, '"')
}

// status* are the values of a response's status.
const (
	statusInProgress = "in_progress"
	statusCompleted  = "completed"
	statusIncomplete = "incomplete"
	statusFailed     = "failed"
)

// writeResponse writes a whole response object. incomplete is the
// incomplete_details reason ("" for none), errObj a rendered error object
// (nil for null), usage nil for null.
func (h *head) writeResponse(w *translate.Writer, status string, completedAt int64, incomplete string, errObj []byte, items []outputItem, usage *catalog.Usage) {
	w.Obj()
	w.Key("id")
	h.writeID(w, "resp_", -1)
	w.Key("object")
	w.Str("response")
	w.Key("created_at")
	w.Int(h.createdAt)
	w.Key("status")
	w.Str(status)
	w.Key("background")
	w.Bool(false)
	w.Key("completed_at")
	if completedAt > 0 {
		w.Int(completedAt)
	} else {
		w.Null()
	}
	w.Key("error")
	if errObj != nil {
		w.RawBytes(errObj)
	} else {
		w.Null()
	}
	w.Key("incomplete_details")
	if incomplete != "" {
		w.Obj()
		w.Key("reason")
		w.Str(incomplete)
		w.EndObj()
	} else {
		w.Null()
	}
	w.Fields(h.echo.head)
	w.Key("model")
	firstRaw(w, h.model, h.echo.model, "")
	w.Key("output")
	w.Arr()
	for i := range items {
		h.writeItem(w, &items[i], i, false)
	}
	w.EndArr()
	w.Fields(h.echo.mid)
	w.Key("service_tier")
	firstRaw(w, h.tier, h.echo.tier, "auto")
	w.Key("usage")
	if usage != nil {
		translate.WriteResponsesUsage(w, *usage)
	} else {
		w.Null()
	}
	w.Fields(h.echo.tail)
	w.EndObj()
}

// firstRaw writes the first non-empty raw JSON value of upstream and echo,
// or def as a string when both are empty.
func firstRaw(w *translate.Writer, upstream, echo []byte, def string) {
	switch {
	case len(upstream) > 0:
		w.RawBytes(upstream)
	case len(echo) > 0:
		w.RawBytes(echo)
	default:
		w.Str(def)
	}
}

// incompleteReason maps a chat finish_reason to the Responses
// incomplete_details reason, "" when the answer is complete.
func incompleteReason(finish string) string {
	switch finish {
	case "length":
		return "max_output_tokens"
	case "content_filter":
		return "content_filter"
	}
	return ""
}
