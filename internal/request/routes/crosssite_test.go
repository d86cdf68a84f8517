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

func TestCrossSiteChange(t *testing.T) {
	for _, c := range []struct {
		method string
		want   bool
	}{{"GET", false}, {"HEAD", false}, {"POST", true}, {"PUT", true}, {"DELETE", true}, {"OPTIONS", true}} {
		r := httptest.NewRequest(c.method, "http://gw.local:8080/v1/audio/transcriptions", nil)
		r.Header.Set("Sec-Fetch-Site", "cross-site")
		if got := CrossSiteChange(r); got != c.want {
			t.Errorf("cross-site %s: %v, want %v", c.method, got, c.want)
		}
		r.Header.Del("Sec-Fetch-Site")
		if CrossSiteChange(r) {
			t.Errorf("same-site %s counted as a cross-site change", c.method)
		}
	}
}
