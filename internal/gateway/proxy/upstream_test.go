package proxy

import (
	"testing"
	"time"
)

func TestUpstreamsRedactAndLimits(t *testing.T) {
	u := NewUpstreams(map[string]UpstreamLimits{"a": {ReadIdleTimeout: time.Second, MaxEventBytes: -1}},
		[]string{"sk-abc", " ", "sk-abc-longer"})
	if got := u.redact("keys sk-abc-longer and sk-abc"); got != "keys [redacted] and [redacted]" {
		t.Errorf("redact = %q", got)
	}
	if l := u.limitsFor("a"); l.ReadIdleTimeout != time.Second || l.MaxEventBytes != DefaultMaxEventBytes ||
		l.MaxResponseBytes != DefaultMaxResponseBytes || l.Timeout != 0 {
		t.Errorf("limits of a = %+v", l)
	}
	if l := u.limitsFor("unknown"); l != defaultLimits || l.ReadIdleTimeout != DefaultReadIdleTimeout {
		t.Errorf("limits of an unconfigured provider = %+v", l)
	}
	var none *Upstreams
	if none.redact("sk-abc") != "sk-abc" || none.limitsFor("a") != defaultLimits {
		t.Error("a nil Upstreams is not the defaults")
	}
}
