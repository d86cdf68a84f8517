package anthropic

import (
	"bytes"
	"strings"
	"testing"
	"unsafe"

	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
)

// samePartsAsBody fails unless MessagesToChatRequestParts, borrowing every
// string however short, gives the bytes MessagesToChatRequest gave (out)
// or the same error.
func samePartsAsBody(t *testing.T, in []byte, target translate.ChatTarget, out []byte, err error) {
	t.Helper()
	defer func(m int) { borrowMin = m }(borrowMin)
	borrowMin = 1
	parts, perr := MessagesToChatRequestParts(in, target)
	if (err == nil) != (perr == nil) || (err != nil && err.Error() != perr.Error()) {
		t.Fatalf("errors differ: %v, parts %v", err, perr)
	}
	if got := bytes.Join(parts, nil); err == nil && !bytes.Equal(got, out) {
		t.Fatalf("parts join to\n%s\nwant\n%s", got, out)
	}
}

// TestMessagesToChatRequestPartsBorrowLongStrings checks that a long
// prompt is sent from the client's body itself, not copied, while the
// short fields are written anew, and that the parts make the same request
// as the copying translation, with and without rollbacks (a system
// prompt of text blocks, a tool result).
func TestMessagesToChatRequestPartsBorrowLongStrings(t *testing.T) {
	long := strings.Repeat("lorem ipsum ", 200)
	in := []byte(`{"model":"m","max_tokens":8,"stream":true,"system":[{"type":"text","text":"` + long + `"}],` +
		`"messages":[{"role":"user","content":"` + long + `"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"` + long + `"},{"type":"text","text":"short"}]}]}`)
	for _, target := range fuzzTargets {
		out, err := MessagesToChatRequest(in, target)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := MessagesToChatRequestParts(in, target)
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Join(parts, nil); !bytes.Equal(got, out) {
			t.Fatalf("parts join to\n%s\nwant\n%s", got, out)
		}
		borrowed, copied := 0, 0
		start, end := uintptr(unsafe.Pointer(&in[0])), uintptr(unsafe.Pointer(&in[0]))+uintptr(len(in))
		for _, p := range parts {
			if a := uintptr(unsafe.Pointer(unsafe.SliceData(p))); a >= start && a < end {
				borrowed++
			} else {
				copied += len(p)
			}
		}
		if borrowed != 3 || copied > 1024 {
			t.Errorf("%d parts borrowed, %d bytes copied; want the 3 long strings borrowed", borrowed, copied)
		}
		samePartsAsBody(t, in, target, out, nil)
	}
}
