package records

import (
	"testing"
	"time"
)

// at is a time with nanoseconds, in UTC, for golden records.
var at = time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)

// golden fails t unless encode returned want exactly: the bytes the
// engines stored before this package existed, which existing databases
// hold.
func golden(t *testing.T, got []byte, err error, want string) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("stored form changed:\n got %s\nwant %s", got, want)
	}
}

func ptr[T any](v T) *T { return &v }
