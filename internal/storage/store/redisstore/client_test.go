package redisstore

import (
	"context"
	"strings"
	"testing"
)

// TestOpenBadURLHidesPassword: a Redis URL that does not parse is refused
// with an error that does not quote it, since it may carry the password;
// one that parses but is wrong says what is wrong.
func TestOpenBadURLHidesPassword(t *testing.T) {
	_, err := Open(context.Background(), Options{URL: "redis://user:s3cr%t-pw@127.0.0.1:6379/0"})
	if err == nil || strings.Contains(err.Error(), "s3cr") || strings.Contains(err.Error(), "pw@") ||
		!strings.Contains(err.Error(), "the URL is not valid") {
		t.Fatalf("error %v", err)
	}
	_, err = Open(context.Background(), Options{URL: "http://user:s3cret@127.0.0.1:6379/0"})
	if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "scheme: http") {
		t.Fatalf("error %v", err)
	}
}
