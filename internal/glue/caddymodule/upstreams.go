package caddymodule

import (
	"time"

	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// upstreams gives the proxy each provider instance's read limits (its
// idle timeout, its timeout as the cap of a whole non-streamed answer,
// and its size caps) and every provider credential, which the proxy
// strips from relayed upstream error text.
func upstreams(ps config.Providers) *proxy.Upstreams {
	limits := make(map[string]proxy.UpstreamLimits, len(ps))
	secrets := make([]string, 0, len(ps))
	for _, p := range ps {
		limits[p.Name] = proxy.UpstreamLimits{
			ReadIdleTimeout:  time.Duration(p.ReadIdleTimeoutMS) * time.Millisecond,
			Timeout:          p.Timeout(),
			MaxResponseBytes: p.MaxResponseBytes,
			MaxEventBytes:    p.MaxEventBytes,
		}
		secrets = append(secrets, p.APIKey)
	}
	return proxy.NewUpstreams(limits, secrets)
}
