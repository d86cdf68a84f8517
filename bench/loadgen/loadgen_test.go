package main

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func TestRequestBodySize(t *testing.T) {
	for _, size := range []int{1024, 65536, 200} {
		for _, stream := range []bool{false, true} {
			b := requestBody("mock-chat", 32, stream, size)
			if len(b) != size {
				t.Errorf("size %d stream %v: got %d bytes", size, stream, len(b))
			}
			var v struct {
				Model     string `json:"model"`
				MaxTokens int    `json:"max_tokens"`
				Stream    bool   `json:"stream"`
				Messages  []message
			}
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatalf("size %d: %v", size, err)
			}
			if v.Model != "mock-chat" || v.MaxTokens != 32 || v.Stream != stream || len(v.Messages) != 1 || v.Messages[0].Role != "user" {
				t.Errorf("size %d: %+v", size, v)
			}
			if size >= 1024 && len(strings.Fields(v.Messages[0].Content)) < 50 {
				t.Errorf("size %d: content is not words", size)
			}
		}
	}
	if b := requestBody("m", 1, false, 1); !json.Valid(b) {
		t.Errorf("tiny body invalid: %s", b)
	}
}

const chatStream = `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}

data: {"choices":[{"index":0,"delta":{"content":"Echo:"}}]}

data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}

data: [DONE]

`

const messagesStream = `event: message_start
data: {"type":"message_start","message":{"content":[]}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Echo:"}}

event: message_stop
data: {"type":"message_stop"}

`

func TestStreamMarks(t *testing.T) {
	for _, tc := range []struct {
		shape, body string
		wantErr     bool
	}{
		{"chat", chatStream, false},
		{"messages", messagesStream, false},
		{"chat", strings.TrimSuffix(chatStream, "data: [DONE]\n\n"), true},                  // truncated
		{"chat", strings.Replace(chatStream, `"content":"Echo:"`, `"content":""`, 1), true}, // no text
		{"messages", strings.Replace(messagesStream, "event: message_stop\n", "", 1), true},
	} {
		rd := bufio.NewReaderSize(strings.NewReader(tc.body), 16) // tiny buffer: lines arrive in pieces
		n, ttft, err := marksFor(tc.shape).read(rd, time.Now().Add(-time.Second))
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: err = %v, want error %v", tc.shape, err, tc.wantErr)
		}
		if n != int64(len(tc.body)) {
			t.Errorf("%s: read %d bytes, want %d", tc.shape, n, len(tc.body))
		}
		if !tc.wantErr && ttft < time.Second {
			t.Errorf("%s: ttft %v not measured", tc.shape, ttft)
		}
	}
}

func TestParseFlagsAppendsShapePath(t *testing.T) {
	c, err := parseFlags([]string{"-url", "http://127.0.0.1:1", "-shape", "messages"}, nil)
	if err != nil || c.url != "http://127.0.0.1:1/v1/messages" {
		t.Fatalf("got %q, %v", c.url, err)
	}
	c, err = parseFlags([]string{"-url", "http://127.0.0.1:1/custom"}, nil)
	if err != nil || c.url != "http://127.0.0.1:1/custom" {
		t.Fatalf("got %q, %v", c.url, err)
	}
	if _, err := parseFlags([]string{"-shape", "nope"}, nil); err == nil {
		t.Error("bad shape accepted")
	}
	for _, rate := range []string{"-1", "NaN", "+Inf"} {
		if _, err := parseFlags([]string{"-rate", rate}, io.Discard); err == nil {
			t.Errorf("-rate %s accepted", rate)
		}
	}
	if c, err := parseFlags([]string{"-rate", "1500"}, nil); err != nil || c.rate != 1500 {
		t.Errorf("-rate 1500: %v, %v", c.rate, err)
	}
}
