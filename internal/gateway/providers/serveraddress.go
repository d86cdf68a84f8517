package providers

import "net/url"

// Addressed is a provider that knows the host its calls go to.
type Addressed interface {
	// ServerAddress is the host name of the instance's API root ("" for
	// an in-process provider), as OpenTelemetry's server.address names it.
	ServerAddress() string
}

// hostOf is the host name of baseURL, "" when it has none.
func hostOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil {
		return ""
	}
	return u.Hostname()
}

// ServerAddress implements Addressed.
func (p *OpenAICompat) ServerAddress() string { return p.host }

// ServerAddress implements Addressed.
func (p *Anthropic) ServerAddress() string { return p.host }

// ServerAddress implements Addressed.
func (p *ElevenLabs) ServerAddress() string { return p.host }
