// Package userpath normalizes and validates user paths, the hierarchical
// names (such as /team/alpha) that group callers for rate limits, budgets
// and usage. A user path comes from a request header or from the path bound
// to a managed API key; every later stage of the request sees only the
// normalized form.
package userpath

import (
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Root is the user path of callers that name none.
const Root = "/"

// MaxLen is the longest normalized user path accepted, in bytes.
const MaxLen = 512

// Errors returned by Normalize. Their messages never quote the input, so
// they are safe to send to clients and to log.
var (
	// ErrTooLong: the path is longer than MaxLen bytes.
	ErrTooLong = errors.New("user path is longer than 512 bytes")
	// ErrInvalidUTF8: the path is not valid UTF-8.
	ErrInvalidUTF8 = errors.New("user path is not valid UTF-8")
	// ErrControl: the path contains a control character.
	ErrControl = errors.New("user path contains a control character")
	// ErrSpace: the path contains white space inside it.
	ErrSpace = errors.New("user path contains white space")
	// ErrEmptySegment: the path has an empty segment ("//").
	ErrEmptySegment = errors.New("user path has an empty segment (//)")
	// ErrDotSegment: the path has a "." or ".." segment.
	ErrDotSegment = errors.New(`user path has a "." or ".." segment`)
)

// Normalize returns the canonical form of a user path, or an error saying
// why it is not acceptable.
//
// Surrounding white space is removed, an empty path is Root, a missing
// leading slash is added and one trailing slash is dropped, so "team/alpha/"
// becomes "/team/alpha". Segments are kept as written (case included).
// Rejected: paths longer than MaxLen after normalization, invalid UTF-8,
// control characters, white space inside the path, empty segments
// ("/a//b") and "." or ".." segments.
// Normalize is idempotent: a normalized path normalizes to itself.
//
// Empty segments are refused, not collapsed: a path is an identity that
// rate limits, budgets and usage are charged to, and "/customers//app"
// usually means a segment went missing (an empty variable in a client's
// template). Collapsing it to "/customers/app" would silently charge a
// different caller; refusing it makes the mistake visible. This is the
// only user-path rule of the gateway: request headers, managed keys,
// rate-limit and budget subjects, admin bodies and environment seeding all
// go through Normalize.
func Normalize(p string) (string, error) {
	if canonicalASCII(p) {
		return p, nil // the common case, checked in one pass without decoding
	}
	return normalize(p)
}

// normalize is Normalize without the fast path.
func normalize(p string) (string, error) {
	p = strings.TrimSpace(p)
	if p == "" || p == Root {
		return Root, nil
	}
	if len(p) > MaxLen+2 { // room for an added leading and a dropped trailing slash
		return "", ErrTooLong
	}
	if !utf8.ValidString(p) {
		return "", ErrInvalidUTF8
	}
	for _, r := range p {
		if unicode.IsControl(r) {
			return "", ErrControl
		}
		if unicode.IsSpace(r) {
			return "", ErrSpace
		}
	}
	if p[0] != '/' {
		p = "/" + p
	}
	if len(p) > 1 && p[len(p)-1] == '/' {
		p = p[:len(p)-1]
	}
	for rest := p[1:]; ; {
		seg, tail, more := strings.Cut(rest, "/")
		switch seg {
		case "":
			return "", ErrEmptySegment
		case ".", "..":
			return "", ErrDotSegment
		}
		if !more {
			break
		}
		rest = tail
	}
	if len(p) > MaxLen {
		return "", ErrTooLong
	}
	return p, nil
}

// canonicalASCII reports whether p is already normalized and made only of
// printable ASCII (no blank): Normalize would return it unchanged. It is
// false for anything else, which then takes the full checks.
func canonicalASCII(p string) bool {
	n := len(p)
	if n < 2 || n > MaxLen || p[0] != '/' || p[n-1] == '/' {
		return false
	}
	for i := 1; i < n; i++ {
		switch c := p[i]; {
		case c <= ' ' || c >= 0x7f:
			return false
		case c == '/' && p[i-1] == '/':
			return false // empty segment
		case c == '.' && p[i-1] == '/':
			// A segment starting with a dot: refuse "." and "..".
			if i+1 == n || p[i+1] == '/' || (p[i+1] == '.' && (i+2 == n || p[i+2] == '/')) {
				return false
			}
		}
	}
	return true
}
