package audit

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/request/reqbody"
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
	// Fields are the body's top-level members, when the body was scanned
	// (reqbody.Scan); nil falls back to scanning Body.
	Fields *reqbody.Fields
	// Body is the JSON request body, read when Fields is nil; nil or
	// non-JSON bodies are skipped.
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
	f := in.Fields
	if f == nil {
		scanned, err := reqbody.Scan(in.Body)
		if err != nil {
			return ""
		}
		f = &scanned
	}
	if len(f.Metadata) > 0 && f.Metadata[0] == '{' {
		for _, name := range [...]string{"session_id", "user_id"} {
			if v := stringValue(reqbody.Member(f.Metadata, name)); ValidSessionID(v) {
				return v
			}
		}
	}
	if v := stringValue(f.PromptCacheKey); ValidSessionID(v) {
		return v
	}
	if prev := stringValue(f.PreviousResponseID); prev != "" && in.PreviousResponse != nil {
		if s, ok := in.PreviousResponse(in.UserPath, prev); ok && ValidSessionID(s) {
			return s
		}
	}
	return fingerprint(in.UserPath, f)
}

// stringValue returns the text of a raw JSON string value, "" for any
// other value.
func stringValue(raw []byte) string {
	if !reqbody.IsString(raw) {
		return ""
	}
	return gjson.ParseBytes(raw).Str
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
// Responses request; "" when the body has neither. The texts are hashed as
// the client sent them (JSON escapes included), each with a fast 64-bit
// hash, so that a long conversation costs one pass over its first
// message; the id is the SHA-256 of the user path and those hashes.
func fingerprint(userPath string, f *reqbody.Fields) string {
	var system, first textHash
	switch {
	case f.System != nil:
		system.add(f.System)
	case f.Instructions != nil:
		system.add(f.Instructions)
	}
	msgs := f.Messages
	if !reqbody.IsArray(msgs) {
		msgs = f.Input
		if reqbody.IsString(msgs) {
			first.add(msgs)
			msgs = nil
		}
	}
	reqbody.Elements(msgs, func(m []byte) bool {
		switch stringValue(reqbody.Member(m, "role")) {
		case "system", "developer":
			if system.empty() {
				system.add(reqbody.Member(m, "content"))
			}
		case "user":
			first.add(reqbody.Member(m, "content"))
			return false
		}
		return true
	})
	if system.empty() && first.empty() {
		return ""
	}
	var buf [64]byte
	b := append(buf[:0], 0)
	b = binary.BigEndian.AppendUint64(b, system.sum())
	b = binary.BigEndian.AppendUint64(b, first.sum())
	h := sha256.New()
	h.Write([]byte(userPath))
	h.Write(b)
	var sum [sha256.Size]byte
	return FingerprintPrefix + hex.EncodeToString(h.Sum(sum[:0])[:12])
}

// textHash hashes the text of a message content: a string, or the text
// parts of an array of content blocks joined by newlines, or the raw JSON
// of anything else (an image-only message still fingerprints).
type textHash struct {
	d xxhash.Digest
	n int
}

func (t *textHash) empty() bool { return t.n == 0 }

func (t *textHash) sum() uint64 {
	if t.n == 0 {
		return 0
	}
	return t.d.Sum64()
}

func (t *textHash) write(b []byte) {
	if len(b) == 0 {
		return
	}
	if t.n == 0 {
		t.d.Reset()
	}
	_, _ = t.d.Write(b)
	t.n += len(b)
}

// add hashes the text of the content value v.
func (t *textHash) add(v []byte) {
	switch {
	case len(v) == 0:
	case reqbody.IsString(v):
		t.write(v[1 : len(v)-1])
	case reqbody.IsArray(v):
		parts := 0
		reqbody.Elements(v, func(part []byte) bool {
			text := part
			if !reqbody.IsString(part) {
				text = reqbody.Member(part, "text")
			}
			if reqbody.IsString(text) {
				if !t.empty() {
					t.write([]byte{'\n'})
				}
				t.write(text[1 : len(text)-1])
				parts++
			}
			return true
		})
		if parts == 0 {
			t.write(v)
		}
	default:
		t.write(v)
	}
}
