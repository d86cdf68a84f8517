package catalog

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckModelID(t *testing.T) {
	if err := CheckModelID(strings.Repeat("m", MaxModelIDLen)); err != nil {
		t.Fatalf("%d bytes refused: %v", MaxModelIDLen, err)
	}
	if err := CheckModelID(strings.Repeat("m", MaxModelIDLen+1)); err == nil || !strings.Contains(err.Error(), "256") {
		t.Fatalf("%d bytes: %v", MaxModelIDLen+1, err)
	}
}

func TestRecordedModelID(t *testing.T) {
	short := strings.Repeat("m", MaxModelIDLen)
	if RecordedModelID(short) != short {
		t.Fatal("a model within the bound is changed")
	}
	long := strings.Repeat("m", 40_000)
	got := RecordedModelID(long)
	if len(got) > MaxModelIDLen || !strings.HasPrefix(got, "mmmm") || !strings.Contains(got, ModelIDMarker) {
		t.Fatalf("RecordedModelID = %q (%d bytes)", got, len(got))
	}
	if RecordedModelID(long) != got {
		t.Fatal("not deterministic")
	}
	if RecordedModelID(long+"x") == got {
		t.Fatal("two long ids with a common prefix recorded alike")
	}
	// A multi-byte character is not cut in the middle.
	wide := strings.Repeat("é", 200)
	if r := RecordedModelID(wide); !utf8.ValidString(r) || len(r) > MaxModelIDLen {
		t.Fatalf("RecordedModelID(wide) = %q", r)
	}
}
