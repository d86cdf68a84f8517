package translate

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"unsafe"

	"github.com/tidwall/gjson"
)

// respEcho is the part of a response object that repeats the request's
// settings, rendered once per request as comma-separated "key":value
// fragments. The values are what the gateway actually applied: settings
// it drops are echoed as the behaviour the client gets (store false,
// truncation disabled, top_logprobs 0), unset sampling parameters as null
// because the upstream's default is not known.
type respEcho struct {
	model []byte // the requested model (raw JSON), used when the upstream names none
	tier  []byte // the requested service_tier (raw JSON), or nil
	head  []byte // frequency_penalty .. max_tool_calls (before "model")
	mid   []byte // parallel_tool_calls .. truncation (after "output", before "service_tier")
	tail  []byte // user, metadata (after "usage")
}

func newRespEcho(req []byte) respEcho {
	var r respRequest
	// Every value kept is copied into the fragments, so req is read in
	// place.
	_ = r.read(gjson.Parse(unsafe.String(unsafe.SliceData(req), len(req))), false)
	// One buffer holds the model, the tier and the three fragments.
	w := respWriter{buf: make([]byte, 0, 640+len(r.model.Raw)+len(r.instructions.Raw)+len(r.tools.Raw)+len(r.text.Raw)+len(r.metadata.Raw))}
	w.buf = append(w.buf, r.model.Raw...)
	if r.model.Type != gjson.String {
		w.buf = w.buf[:0]
	}
	n := len(w.buf)
	if r.serviceTier.Type == gjson.String {
		w.buf = append(w.buf, r.serviceTier.Raw...)
	}
	var e respEcho
	e.model, e.tier = w.buf[:n:n], w.buf[n:len(w.buf):len(w.buf)]
	if len(e.model) == 0 {
		e.model = nil
	}
	if len(e.tier) == 0 {
		e.tier = nil
	}

	start := len(w.buf)
	w.key("frequency_penalty")
	respRawOr(&w, r.frequencyPenalty, "0.0")
	w.key("instructions")
	w.rawOrNull(r.instructions)
	w.key("max_output_tokens")
	w.rawOrNull(r.maxOutputTokens)
	w.key("max_tool_calls")
	w.rawOrNull(r.maxToolCalls)
	e.head = w.buf[start:len(w.buf):len(w.buf)]

	start, w.comma = len(w.buf), false
	w.key("parallel_tool_calls")
	respRawOr(&w, r.parallelToolCalls, "true")
	w.key("presence_penalty")
	respRawOr(&w, r.presencePenalty, "0.0")
	w.key("previous_response_id")
	w.null()
	w.key("prompt_cache_key")
	w.rawOrNull(r.promptCacheKey)
	w.key("prompt_cache_retention")
	w.rawOrNull(r.promptCacheRetention)
	w.key("reasoning")
	w.obj()
	w.key("effort")
	w.rawOrNull(respNonNull(r.reasoning.Get("effort")))
	w.key("summary") // not produced: Chat upstreams return raw reasoning text, not summaries
	w.null()
	w.endObj()
	w.key("safety_identifier")
	w.rawOrNull(r.safetyIdentifier)
	w.key("store") // nothing is stored: GET /v1/responses/{id} cannot find it
	w.bool(false)
	w.key("temperature")
	w.rawOrNull(r.temperature)
	w.key("text")
	w.obj()
	w.key("format")
	if f := r.text.Get("format"); f.IsObject() {
		w.raw(f.Raw)
	} else {
		w.raw(`{"type":"text"}`)
	}
	w.key("verbosity") // forwarded when set; otherwise the upstream's own default applies
	w.rawOrNull(respNonNull(r.text.Get("verbosity")))
	w.endObj()
	w.key("tool_choice")
	respRawOr(&w, r.toolChoice, `"auto"`)
	w.key("tools")
	respRawOr(&w, r.tools, "[]")
	w.key("top_logprobs")
	w.int(0)
	w.key("top_p")
	w.rawOrNull(r.topP)
	w.key("truncation")
	w.str("disabled")
	e.mid = w.buf[start:len(w.buf):len(w.buf)]

	start, w.comma = len(w.buf), false
	w.key("user")
	w.rawOrNull(r.user)
	w.key("metadata")
	respRawOr(&w, r.metadata, "{}")
	e.tail = w.buf[start:len(w.buf):len(w.buf)]
	return e
}

// respNonNull returns v, or the zero Result when v is null.
func respNonNull(v gjson.Result) gjson.Result {
	if v.Type == gjson.Null {
		return gjson.Result{}
	}
	return v
}

func respRawOr(w *respWriter, v gjson.Result, def string) {
	if v.Exists() {
		w.raw(v.Raw)
	} else {
		w.raw(def)
	}
}

// fields writes pre-rendered "key":value fragments into the open object.
func (w *respWriter) fields(frag []byte) {
	if len(frag) > 0 {
		w.sep()
		w.buf = append(w.buf, frag...)
	}
}

// respHead is the per-response state shared by the non-streaming and
// streaming translations.
type respHead struct {
	echo      respEcho
	suffix    []byte // the upstream id without its "chatcmpl-" prefix, JSON-escaped; item ids derive from it
	model     []byte // raw JSON string
	tier      []byte // raw JSON string
	createdAt int64
}

// setID derives the id suffix from the upstream's chat completion id, or
// makes a random one when the upstream sent none.
func (h *respHead) setID(chatID string) {
	s := strings.TrimPrefix(chatID, "chatcmpl-")
	if s == "" {
		var b [16]byte
		_, _ = rand.Read(b[:])
		s = hex.EncodeToString(b[:])
	}
	h.suffix = respAppendString(nil, s)
	h.suffix = h.suffix[1 : len(h.suffix)-1]
}

// writeID writes prefix + suffix (+ "_" + n when n >= 0) as a string.
func (h *respHead) writeID(w *respWriter, prefix string, n int) {
	w.sep()
	w.buf = append(w.buf, '"')
	w.buf = append(w.buf, prefix...)
	w.buf = append(w.buf, h.suffix...)
	if n >= 0 {
		w.buf = append(w.buf, '_')
		w.buf = strconv.AppendInt(w.buf, int64(n), 10)
	}
	w.buf = append(w.buf, '"')
}

// respStatus* are the values of a response's status.
const (
	respInProgress = "in_progress"
	respCompleted  = "completed"
	respIncomplete = "incomplete"
	respFailed     = "failed"
)

// writeResponse writes a whole response object. incomplete is the
// incomplete_details reason ("" for none), errObj a rendered error object
// (nil for null), usage nil for null.
func (h *respHead) writeResponse(w *respWriter, status string, completedAt int64, incomplete string, errObj []byte, items []respItem, usage *Usage) {
	w.obj()
	w.key("id")
	h.writeID(w, "resp_", -1)
	w.key("object")
	w.str("response")
	w.key("created_at")
	w.int(h.createdAt)
	w.key("status")
	w.str(status)
	w.key("background")
	w.bool(false)
	w.key("completed_at")
	if completedAt > 0 {
		w.int(completedAt)
	} else {
		w.null()
	}
	w.key("error")
	if errObj != nil {
		w.rawBytes(errObj)
	} else {
		w.null()
	}
	w.key("incomplete_details")
	if incomplete != "" {
		w.obj()
		w.key("reason")
		w.str(incomplete)
		w.endObj()
	} else {
		w.null()
	}
	w.fields(h.echo.head)
	w.key("model")
	w.firstRaw(h.model, h.echo.model, "")
	w.key("output")
	w.arr()
	for i := range items {
		h.writeItem(w, &items[i], i, false)
	}
	w.endArr()
	w.fields(h.echo.mid)
	w.key("service_tier")
	w.firstRaw(h.tier, h.echo.tier, "auto")
	w.key("usage")
	if usage != nil {
		respWriteUsage(w, usage)
	} else {
		w.null()
	}
	w.fields(h.echo.tail)
	w.endObj()
}

// respWriteUsage writes a Responses usage object.
func respWriteUsage(w *respWriter, u *Usage) {
	w.obj()
	w.key("input_tokens")
	w.int(u.InputTokens)
	w.key("input_tokens_details")
	w.obj()
	w.key("cached_tokens")
	w.int(u.CachedInputTokens)
	w.endObj()
	w.key("output_tokens")
	w.int(u.OutputTokens)
	w.key("output_tokens_details")
	w.obj()
	w.key("reasoning_tokens")
	w.int(u.ReasoningTokens)
	w.endObj()
	w.key("total_tokens")
	w.int(u.TotalTokens)
	w.endObj()
}

// respIncompleteReason maps a chat finish_reason to the Responses
// incomplete_details reason, "" when the answer is complete.
func respIncompleteReason(finish string) string {
	switch finish {
	case "length":
		return "max_output_tokens"
	case "content_filter":
		return "content_filter"
	}
	return ""
}
