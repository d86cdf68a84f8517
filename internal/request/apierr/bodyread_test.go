package apierr

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"
)

// TestBodyReadError: a body read that timed out, however the error comes
// wrapped, is 408 request_timeout; any other read failure is 400 with a
// fixed message that never quotes the error's text.
func TestBodyReadError(t *testing.T) {
	opTimeout := &net.OpError{Op: "read", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, Err: os.ErrDeadlineExceeded}
	for _, err := range []error{
		os.ErrDeadlineExceeded,
		opTimeout,
		fmt.Errorf("multipart: NextPart: %w", opTimeout),
	} {
		e := BodyReadError(err, "invalid_json")
		if e.StatusCode != 408 || e.Type != TypeInvalidRequest || e.Code == nil || *e.Code != CodeRequestTimeout {
			t.Errorf("%v: %+v", err, e)
		}
	}
	reset := &net.OpError{Op: "read", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, Err: errors.New("connection reset by peer")}
	for _, err := range []error{reset, io.ErrUnexpectedEOF} {
		e := BodyReadError(err, "")
		if e.StatusCode != 400 || e.Code != nil || strings.Contains(e.Message, "127.0.0.1") || strings.Contains(e.Message, "reset") {
			t.Errorf("%v: %+v", err, e)
		}
		if TimedOut(err) {
			t.Errorf("%v counted as a timeout", err)
		}
	}
	if e := BodyReadError(io.ErrUnexpectedEOF, "invalid_json"); e.Code == nil || *e.Code != "invalid_json" {
		t.Errorf("code %v", e.Code)
	}
}
