package batches

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// An unreachable provider's batch API is 502 upstream_unreachable with a
// fixed message: the Go error names addresses, which stay in the log.
func TestUpstreamErrUnreachableHidesTheAddress(t *testing.T) {
	cause := fmt.Errorf("uploading the input file: %w", &url.Error{Op: "Post", URL: "http://10.1.2.3:9/v1/files",
		Err: errors.New("dial tcp 10.1.2.3:9: connect: connection refused")})
	e := upstreamErr(&UpstreamError{Provider: "oa", Err: cause})
	if e.StatusCode != 502 || e.Type != "provider_error" || e.Code == nil || *e.Code != "upstream_unreachable" ||
		strings.Contains(e.Message, "10.1.2.3") {
		t.Fatalf("unreachable provider: %d %s %v %q", e.StatusCode, e.Type, e.Code, e.Message)
	}
}
