package providers

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestListingFailed: a provider whose last listing failed is reported so
// (virtual models skip its targets); one that listed is not, and neither
// is one that never lists (allowlist) or an unknown name.
func TestListingFailed(t *testing.T) {
	r := NewRegistry([]Entry{
		{Provider: &slowLister{name: "fail", err: io.ErrUnexpectedEOF}, Models: []string{"f1"}},
		{Provider: &slowLister{name: "good", ids: []string{"g1"}}},
		{Provider: &slowLister{name: "allow"}, Models: []string{"a1"}, Allowlist: true},
	}, RegistryOptions{Timeout: time.Second})
	if r.ListingFailed("fail") {
		t.Fatal("failed before any listing")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.Start(ctx)
	<-r.Ready()
	if !r.ListingFailed("fail") || r.ListingFailed("good") || r.ListingFailed("allow") || r.ListingFailed("nope") {
		t.Fatalf("fail %v good %v allow %v", r.ListingFailed("fail"), r.ListingFailed("good"), r.ListingFailed("allow"))
	}
}
