package routes

import (
	"net/http/httptest"
	"testing"
)

func TestCrossSite(t *testing.T) {
	for _, c := range []struct {
		fetchSite, origin string
		want              bool
	}{
		{"", "", false},
		{"same-origin", "", false},
		{"none", "", false},
		{"cross-site", "", true},
		{"same-site", "", true},
		{"", "http://gw.local:8080", false},
		{"", "http://GW.local:8080", false},
		{"", "http://gw.local:3000", true},
		{"", "http://evil.example", true},
		{"", "null", true},
		{"", "::bad", true},
		{"same-origin", "http://gw.local:8080", false},
	} {
		r := httptest.NewRequest("POST", "http://gw.local:8080/admin/rate-limits/reset", nil)
		if c.fetchSite != "" {
			r.Header.Set("Sec-Fetch-Site", c.fetchSite)
		}
		if c.origin != "" {
			r.Header.Set("Origin", c.origin)
		}
		if got := CrossSite(r); got != c.want {
			t.Errorf("Sec-Fetch-Site %q Origin %q: %v, want %v", c.fetchSite, c.origin, got, c.want)
		}
	}
}
