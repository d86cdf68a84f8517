package mock

import (
	"unicode"
	"unicode/utf8"
)

// perMessageTokens is the fixed overhead counted for every chat message.
const perMessageTokens = 3

// estimateTokens is the mock tokenizer: one token per four characters
// (runes), rounded up.
func estimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// promptTokens estimates the prompt size of a chat request: ceil(chars/4)
// over the text of all messages (content plus any tool call names and
// arguments), plus perMessageTokens per message, and at least 1.
func promptTokens(messages []message) int {
	chars := 0
	for _, m := range messages {
		chars += utf8.RuneCountInString(contentText(m.content))
		for _, tc := range m.toolCalls.Array() {
			chars += utf8.RuneCountInString(tc.Get("function.name").String())
			chars += utf8.RuneCountInString(tc.Get("function.arguments").String())
		}
	}
	n := (chars+3)/4 + perMessageTokens*len(messages)
	return max(n, 1)
}

// truncateWords keeps the first n whitespace-separated words of s, with
// their original spacing. It reports whether anything was cut off; when
// nothing was, s is returned unchanged.
func truncateWords(s string, n int) (string, bool) {
	words := 0
	inWord := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			if words == n {
				return trimRightSpace(s[:i]), true
			}
			words++
		}
		inWord = !space
	}
	return s, false
}

// trimRightSpace removes trailing white space.
func trimRightSpace(s string) string {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		if !unicode.IsSpace(r) {
			break
		}
		s = s[:len(s)-size]
	}
	return s
}

// splitWords splits s into streaming pieces: each word with the white space
// that precedes it, like real providers' token deltas. Joining the pieces
// gives s back exactly.
func splitWords(s string) []string {
	var pieces []string
	start := 0
	prevSpace := false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if space && !prevSpace && i > start {
			pieces = append(pieces, s[start:i])
			start = i
		}
		prevSpace = space
	}
	if start < len(s) {
		pieces = append(pieces, s[start:])
	}
	return pieces
}

// splitEven splits s into at most n pieces of roughly equal byte length,
// cutting only at rune boundaries. Joining the pieces gives s back.
func splitEven(s string, n int) []string {
	if s == "" || n <= 1 {
		return []string{s}
	}
	size := (len(s) + n - 1) / n
	var pieces []string
	for len(s) > 0 {
		cut := min(size, len(s))
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		pieces = append(pieces, s[:cut])
		s = s[cut:]
	}
	return pieces
}

// splitRunes splits s into pieces of n runes (the last may be shorter).
// Joining the pieces gives s back.
func splitRunes(s string, n int) []string {
	var pieces []string
	for len(s) > 0 {
		cut, count := 0, 0
		for cut < len(s) && count < n {
			_, size := utf8.DecodeRuneInString(s[cut:])
			cut += size
			count++
		}
		pieces = append(pieces, s[:cut])
		s = s[cut:]
	}
	return pieces
}
