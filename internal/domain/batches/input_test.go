package batches

import (
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestParseInputBoundsTheModel: a line whose body.model is longer than
// catalog.MaxModelIDLen is refused, naming the line, like a model endpoint
// refuses such a model; one of MaxLen bytes is taken.
func TestParseInputBoundsTheModel(t *testing.T) {
	line := func(id, model string) string {
		return `{"custom_id":"` + id + `","method":"POST","url":"/v1/chat/completions","body":{"model":"` + model + `","messages":[]}}`
	}
	ok := strings.Repeat("m", catalog.MaxModelIDLen)
	lines, err := ParseInput([]byte(line("a", ok) + "\n" + line("b", ok+"m")))
	if err == nil || !strings.Contains(err.Error(), "line 2: body.model") {
		t.Fatalf("ParseInput = %d lines, %v; want line 2 refused for its model", len(lines), err)
	}
	if lines, err := ParseInput([]byte(line("a", ok))); err != nil || len(lines) != 1 || lines[0].Model != ok {
		t.Fatalf("a model of MaxLen bytes: %v %v", lines, err)
	}
}
