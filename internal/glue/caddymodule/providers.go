package caddymodule

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/mock"
	"github.com/modelgate/modelgate/internal/platform/config"
)

// inProcessBaseURL is the API root given to in-process instances that set
// none; their transport ignores the host.
const inProcessBaseURL = "http://mock.invalid/v1"

// buildProviders turns configured instances into registry entries, each
// built as its type's row in the provider-type table says. Types declared
// ahead of their adapter are skipped with a warning.
func buildProviders(ps config.Providers, logger *zap.Logger) ([]providers.Entry, error) {
	entries := make([]providers.Entry, 0, len(ps))
	ua := "modelgate/" + Version
	for _, p := range ps {
		t, ok := providers.LookupType(p.Type)
		switch {
		case !ok:
			return nil, fmt.Errorf("providers.%s.type: unknown provider type %q", p.Name, p.Type)
		case !t.Served:
			logger.Warn("provider type not served yet; instance skipped",
				zap.String("provider", p.Name), zap.String("type", p.Type))
			continue
		}
		client := &http.Client{Transport: upstreamTransport(time.Duration(p.TimeoutSeconds) * time.Second)}
		if t.InProcess {
			client = &http.Client{Transport: mock.NewTransport(mock.Options{
				Latency: time.Duration(p.LatencyMS) * time.Millisecond,
			})}
			if p.BaseURL == "" {
				p.BaseURL = inProcessBaseURL
			}
		}
		adapter, err := providers.New(providers.Options{
			Name: p.Name, Type: p.Type, BaseURL: p.BaseURL, APIKey: p.APIKey,
			APIVersion: p.APIVersion, Client: client, UserAgent: ua,
		})
		if err != nil {
			return nil, fmt.Errorf("providers.%s: %w", p.Name, err)
		}
		entries = append(entries, providers.Entry{
			Provider:  adapter,
			Models:    p.Models,
			Allowlist: p.ModelsMode == config.ModelsModeAllowlist,
		})
	}
	return entries, nil
}

// upstreamTransport is the HTTP transport for one provider instance:
// pooled keep-alive connections, bounded connect and TLS time, and
// headerTimeout as the wait for the upstream's response headers.
func upstreamTransport(headerTimeout time.Duration) *http.Transport {
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           providers.DialUpstream(dialer),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   256,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		ResponseHeaderTimeout: headerTimeout,
		// Bodies pass through as the upstream sent them; transparent
		// decompression would buffer streams.
		DisableCompression: true,
	}
}

// Version is Modelgate's release version.
const Version = "0.1.0-dev"
