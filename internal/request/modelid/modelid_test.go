package modelid

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheck(t *testing.T) {
	if err := Check(strings.Repeat("m", MaxLen)); err != nil {
		t.Fatalf("%d bytes refused: %v", MaxLen, err)
	}
	if err := Check(strings.Repeat("m", MaxLen+1)); err == nil || !strings.Contains(err.Error(), "256") {
		t.Fatalf("%d bytes: %v", MaxLen+1, err)
	}
}

func TestRecorded(t *testing.T) {
	short := strings.Repeat("m", MaxLen)
	if Recorded(short) != short {
		t.Fatal("a model within the bound is changed")
	}
	long := strings.Repeat("m", 40_000)
	got := Recorded(long)
	if len(got) > MaxLen || !strings.HasPrefix(got, "mmmm") || !strings.Contains(got, Marker) {
		t.Fatalf("Recorded = %q (%d bytes)", got, len(got))
	}
	if Recorded(long) != got {
		t.Fatal("not deterministic")
	}
	if Recorded(long+"x") == got {
		t.Fatal("two long ids with a common prefix recorded alike")
	}
	// A multi-byte character is not cut in the middle.
	wide := strings.Repeat("é", 200)
	if r := Recorded(wide); !utf8.ValidString(r) || len(r) > MaxLen {
		t.Fatalf("Recorded(wide) = %q", r)
	}
}
