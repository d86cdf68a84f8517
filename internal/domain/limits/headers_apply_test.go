package limits

import (
	"net/http"
	"testing"
	"time"
)

func TestHeadersApplyValuesAndIndependence(t *testing.T) {
	h := Headers{HasRequests: true, LimitRequests: 60, RemainingRequests: 0, ResetRequests: 42 * time.Second,
		HasTokens: true, LimitTokens: 100000, RemainingTokens: 12345, ResetTokens: 3599 * time.Second,
		HasConcurrency: true, LimitConcurrency: 4, RemainingConcurrency: 3}
	hdr := http.Header{}
	h.Apply(hdr)
	want := map[string]string{
		HeaderLimitRequests: "60", HeaderRemainingRequests: "0", HeaderResetRequests: "42",
		HeaderLimitTokens: "100000", HeaderRemainingTokens: "12345", HeaderResetTokens: "3599",
		HeaderLimitConcurrency: "4", HeaderRemainingConcurrency: "3",
	}
	for k, v := range want {
		if got := hdr.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %v, want %s", k, got, v)
		}
	}
	// Adding to one header must not overwrite its neighbour in the shared
	// backing array.
	hdr.Add(HeaderLimitRequests, "extra")
	if hdr.Get(HeaderRemainingRequests) != "0" {
		t.Fatalf("neighbour clobbered: %v", hdr)
	}
	only := http.Header{}
	Headers{HasTokens: true, LimitTokens: 7, RemainingTokens: 6, ResetTokens: time.Second}.Apply(only)
	if len(only) != 3 || only.Get(HeaderLimitTokens) != "7" || only.Get(HeaderLimitRequests) != "" {
		t.Fatalf("tokens only: %v", only)
	}
	none := http.Header{}
	Headers{}.Apply(none)
	if len(none) != 0 {
		t.Fatalf("no rule: %v", none)
	}
}
