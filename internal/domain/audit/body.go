package audit

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DefaultMaxBodyBytes is the default cap on a recorded body: 1 MiB.
const DefaultMaxBodyBytes = 1 << 20

// CaptureBody returns the recorded form of a request or response body:
//   - nil for an empty body;
//   - nil and tooBig true when maxBytes > 0 and the body is longer;
//   - {"content_type": ..., "bytes": n} for audio, video, image, multipart
//     and octet-stream bodies, and for any body that is neither JSON nor
//     UTF-8 text, so that no binary content is stored;
//   - the body itself when it is valid JSON;
//   - else the body as a JSON string.
//
// The result never shares memory with body.
func CaptureBody(contentType string, body []byte, maxBytes int) (rec json.RawMessage, tooBig bool) {
	if len(body) == 0 {
		return nil, false
	}
	if maxBytes > 0 && len(body) > maxBytes {
		return nil, true
	}
	mt := mediaType(contentType)
	if binaryMedia(mt) {
		return BodySummary(mt, int64(len(body))), false
	}
	if json.Valid(body) {
		return append(json.RawMessage(nil), body...), false
	}
	if !utf8.Valid(body) {
		return BodySummary(mt, int64(len(body))), false
	}
	s, _ := json.Marshal(string(body)) // cannot fail for a string
	return s, false
}

// BodySummary returns {"content_type": contentType, "bytes": n}: how a
// binary body (audio above all) is recorded.
func BodySummary(contentType string, n int64) json.RawMessage {
	ct, _ := json.Marshal(contentType) // cannot fail for a string
	b := make([]byte, 0, len(ct)+40)
	b = append(b, `{"content_type":`...)
	b = append(b, ct...)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, '}')
}

// mediaType returns the lower-case media type of a Content-Type value,
// without parameters.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// binaryMedia reports whether bodies of media type mt are recorded only by
// their type and size.
func binaryMedia(mt string) bool {
	for _, p := range []string{"audio/", "video/", "image/", "multipart/"} {
		if strings.HasPrefix(mt, p) {
			return true
		}
	}
	return mt == "application/octet-stream"
}

// ReadableBody returns a recorded body as valid JSON. The audit stage
// records a JSON request or response body as it was sent, without
// validating it on the request path; storage passes recorded bodies
// through ReadableBody when it reads them back, so a body that is not
// valid JSON (a client's malformed request) reads as a JSON string of its
// text (with invalid UTF-8 replaced), and a valid one as itself.
func ReadableBody(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || json.Valid(m) {
		return m
	}
	s, _ := json.Marshal(strings.ToValidUTF8(string(m), "\uFFFD")) // cannot fail for a string
	return s
}
