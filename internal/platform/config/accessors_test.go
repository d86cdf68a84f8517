package config

import (
	"testing"
	"time"
)

func TestAccessors(t *testing.T) {
	var zero Config
	tests := []struct {
		name      string
		got, want any
	}{
		{"Bool nil", Bool(nil, true), true},
		{"Bool set", Bool(Ptr(false), true), false},
		{"Int nil", Int(nil, 4), 4},
		{"Int64 set", Int64(Ptr(int64(0)), 4), int64(0)},
		{"endpoints default", zero.Admin.EndpointsOn(), true},
		{"ui default", zero.Admin.UIOn(), true},
		{"ui off with endpoints", Admin{EndpointsEnabled: Ptr(false), UIEnabled: Ptr(true)}.UIOn(), false},
		{"live logs default", zero.Admin.LiveLogsOn(), false},
		{"unauthenticated default", zero.Admin.UnauthenticatedAllowed(), false},
		{"legacy alias default", zero.Admin.LegacyAliasMode(), "auto"},
		{"logging default", zero.Logging.On(), true},
		{"bodies default", zero.Logging.BodiesOn(), true},
		{"headers off", Logging{LogHeaders: Ptr(false)}.HeadersOn(), false},
		{"redact secrets default", Logging{}.RedactSecretsOn(), true},
		{"redact secrets off", Logging{RedactSecrets: Ptr(false)}.RedactSecretsOn(), false},
		{"retention default", zero.Logging.Retention(), 30 * 24 * time.Hour},
		{"retention forever", Logging{RetentionDays: Ptr(0)}.Retention(), time.Duration(0)},
		{"body limit default", zero.Logging.BodyLimit(), int64(1 << 20)},
		{"usage default", zero.Usage.On(), true},
		{"cache default", zero.Cache.On(), false},
		{"cache ttl default", zero.Cache.TTL(), time.Hour},
		{"cache size default", zero.Cache.Limit(), int64(256 << 20)},
		{"cache entry size default", zero.Cache.EntryLimit(), int64(1 << 20)},
		{"cache entry size default under a small cache", Cache{MaxBytes: Ptr(int64(1000))}.EntryLimit(), int64(1000)},
		{"cache scope default", zero.Cache.Global(), false},
		{"rate limits default", zero.RateLimits.On(), true},
		{"flush default", zero.RateLimits.FlushEvery(), time.Second},
		{"flush off", RateLimits{FlushInterval: Ptr(0)}.FlushEvery(), time.Duration(0)},
		{"budgets default", zero.Budgets.On(), true},
		{"models refresh default", zero.Server.ModelsRefresh(), 300 * time.Second},
		{"models timeout default", zero.Server.ModelsTimeout(), 10 * time.Second},
		{"provider timeout default", Provider{}.Timeout(), 300 * time.Second},
		{"provider timeout set", Provider{TimeoutSeconds: 2}.Timeout(), 2 * time.Second},
		{"provider latency", Provider{LatencyMS: 5}.Latency(), 5 * time.Millisecond},
		{"provider mode default", Provider{}.Mode(), "fallback"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}
