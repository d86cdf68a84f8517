package keys

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Field limits.
const (
	// MaxNameLen is the longest key name, in bytes.
	MaxNameLen = 128
	// MaxDescriptionLen is the longest key description, in bytes.
	MaxDescriptionLen = 1024
)

// cleanName validates and trims a key name.
func cleanName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", apierr.FieldMsg("name", "is required")
	case len(name) > MaxNameLen:
		return "", apierr.FieldMsg("name", "is longer than 128 bytes")
	case !printable(name, false):
		return "", apierr.FieldMsg("name", "must be valid UTF-8 without control characters")
	}
	return name, nil
}

// cleanDescription validates and trims a description.
func cleanDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	switch {
	case len(d) > MaxDescriptionLen:
		return "", apierr.FieldMsg("description", "is longer than 1024 bytes")
	case !printable(d, true):
		return "", apierr.FieldMsg("description", "must be valid UTF-8 without control characters")
	}
	return d, nil
}

// cleanUserPath normalizes a user path to bind; "" (or only white space)
// means unbound.
func cleanUserPath(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", nil
	}
	n, err := userpath.Normalize(p)
	if err != nil {
		return "", apierr.FieldMsg("user_path", err.Error())
	}
	return n, nil
}

// checkExpiry validates an expiry time for a key created or changed at now.
func checkExpiry(t *time.Time, now time.Time) (*time.Time, error) {
	if t == nil {
		return nil, nil
	}
	if !t.After(now) {
		return nil, apierr.FieldMsg("expires_at", "must be in the future")
	}
	u := t.UTC()
	return &u, nil
}

// printable reports whether s is valid UTF-8 without control characters
// (newlines and tabs allowed when multiline).
func printable(s string, multiline bool) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) {
			return false
		}
	}
	return true
}
