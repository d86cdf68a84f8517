package audit

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// MaxSessionIDLen is the longest session id accepted, in characters; a
// longer one is ignored as if absent.
const MaxSessionIDLen = 200

// Session id sources, in the order DetectSession tries them.
const (
	// SessionHeader is the client's explicit session header.
	SessionHeader = "X-Session-Id"
	// ClaudeCodeSessionHeader is the session header Claude Code sends.
	ClaudeCodeSessionHeader = "X-Claude-Code-Session-Id"
)

// FingerprintPrefix starts every session id DetectSession derives from the
// conversation itself.
const FingerprintPrefix = "fp_"

// SessionInput is what DetectSession looks at for one request.
type SessionInput struct {
	// UserPath is the caller's user path; it scopes fingerprints and
	// previous-response lookups.
	UserPath string
	// Header is the request's header.
	Header http.Header
	// Body is the JSON request body; nil or non-JSON bodies are skipped.
	Body []byte
	// PreviousResponse returns the session of the response named by the
	// body's previous_response_id, looked up within the user path. Nil
	// skips this source.
	PreviousResponse func(userPath, responseID string) (sessionID string, ok bool)
}

// DetectSession returns the request's session id: the first valid one of
// the header X-Session-Id, the header x-claude-code-session-id, the body's
// metadata.session_id, metadata.user_id, prompt_cache_key, and the session
// of the response named by previous_response_id; otherwise a fingerprint of
// (user path, system prompt, first user message) starting with "fp_", the
// same for every request of one conversation. It returns "" when none
// applies (no conversation in the body).
//
// A candidate is valid when it is non-blank UTF-8 of at most
// MaxSessionIDLen characters without control characters; an invalid one
// is ignored and the next source tried. Session ids are meaningful only
// together with the user path: the same id under two user paths names two
// sessions, and fingerprints include the user path.
func DetectSession(in SessionInput) string {
	for _, h := range [...]string{SessionHeader, ClaudeCodeSessionHeader} {
		if v := in.Header.Get(h); ValidSessionID(v) {
			return v
		}
	}
	if !jsonObject(in.Body) {
		return ""
	}
	r := gjson.GetManyBytes(in.Body, "metadata.session_id", "metadata.user_id",
		"prompt_cache_key", "previous_response_id")
	for _, v := range r[:3] {
		if v.Type == gjson.String && ValidSessionID(v.Str) {
			return v.Str
		}
	}
	if prev := r[3]; prev.Type == gjson.String && prev.Str != "" && in.PreviousResponse != nil {
		if s, ok := in.PreviousResponse(in.UserPath, prev.Str); ok && ValidSessionID(s) {
			return s
		}
	}
	return fingerprint(in.UserPath, in.Body)
}

// jsonObject reports whether b looks like a JSON object (its first
// non-space byte is '{'); gjson copes with the rest.
func jsonObject(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{':
			return true
		}
		return false
	}
	return false
}

// ValidSessionID reports whether s may be used as a session id: non-blank
// UTF-8, at most MaxSessionIDLen characters, no control characters.
func ValidSessionID(s string) bool {
	if s == "" || len(s) > 4*MaxSessionIDLen || !utf8.ValidString(s) ||
		strings.TrimSpace(s) == "" || utf8.RuneCountInString(s) > MaxSessionIDLen {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// fingerprint derives a session id from the user path, the system prompt
// and the first user message of a chat completions, Anthropic messages or
// Responses request; "" when the body has neither.
func fingerprint(userPath string, body []byte) string {
	system, first := conversationStart(body)
	if system == "" && first == "" {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(userPath))
	h.Write([]byte{0})
	h.Write([]byte(system))
	h.Write([]byte{0})
	h.Write([]byte(first))
	var sum [sha256.Size]byte
	return FingerprintPrefix + hex.EncodeToString(h.Sum(sum[:0])[:12])
}

// conversationStart returns the system prompt and the first user message
// of a request body, as text.
func conversationStart(body []byte) (system, firstUser string) {
	r := gjson.GetManyBytes(body, "system", "instructions", "messages", "input")
	switch {
	case r[0].Exists():
		system = text(r[0])
	case r[1].Exists():
		system = text(r[1])
	}
	msgs := r[2]
	if !msgs.IsArray() {
		msgs = r[3]
		if msgs.Type == gjson.String {
			return system, msgs.Str
		}
	}
	msgs.ForEach(func(_, m gjson.Result) bool {
		switch m.Get("role").Str {
		case "system", "developer":
			if system == "" {
				system = text(m.Get("content"))
			}
		case "user":
			firstUser = text(m.Get("content"))
			return false
		}
		return true
	})
	return system, firstUser
}

// text returns the text of a message content: a string, or the text parts
// of an array of content blocks joined by newlines, or the raw JSON of
// anything else (an image-only message still fingerprints).
func text(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return v.Str
	case v.IsArray():
		var b strings.Builder
		v.ForEach(func(_, part gjson.Result) bool {
			t := part.Get("text")
			if part.Type == gjson.String {
				t = part
			}
			if t.Type == gjson.String {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(t.Str)
			}
			return true
		})
		if b.Len() > 0 {
			return b.String()
		}
	}
	return v.Raw
}
