package main

import (
	"encoding/json"
	"strings"
)

// padWords fill the user message. Real words separated by spaces make the
// mock upstream's echo stream word by word, like a model's tokens.
var padWords = strings.Fields("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et dolore magna aliqua")

// requestBody returns the request body: one user message padded so the
// whole body is size bytes long (or the minimum, if size is smaller). The
// same JSON serves both shapes: OpenAI chat accepts max_tokens, and the
// Anthropic messages API requires it.
func requestBody(model string, maxTokens int, stream bool, size int) []byte {
	build := func(content string) []byte {
		b, _ := json.Marshal(struct {
			Model     string    `json:"model"`
			MaxTokens int       `json:"max_tokens"`
			Stream    bool      `json:"stream"`
			Messages  []message `json:"messages"`
		}{model, maxTokens, stream, []message{{"user", content}}})
		return b
	}
	base := len(build(""))
	return build(padding(size - base))
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// padding returns n bytes of space-separated words that need no JSON
// escaping (at least one word when n < 1).
func padding(n int) string {
	if n < 1 {
		return padWords[0]
	}
	var sb strings.Builder
	sb.Grow(n)
	for i := 0; sb.Len() < n; i++ {
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(padWords[i%len(padWords)])
	}
	return sb.String()[:n]
}
