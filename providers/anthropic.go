package providers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// AnthropicVersion is the anthropic-version header sent upstream.
const AnthropicVersion = "2023-06-01"

// Anthropic is the adapter for Anthropic's native Messages API.
type Anthropic struct {
	name      string
	baseURL   string
	apiKey    string
	client    *http.Client
	userAgent string
}

// AnthropicOptions configure NewAnthropic.
type AnthropicOptions struct {
	// Name is the instance name.
	Name string
	// BaseURL is the API root, e.g. https://api.anthropic.com/v1.
	BaseURL string
	// APIKey is sent as x-api-key.
	APIKey string
	// Client sends the requests. Required.
	Client *http.Client
	// UserAgent is sent upstream.
	UserAgent string
}

// NewAnthropic returns an adapter for one Anthropic instance.
func NewAnthropic(o AnthropicOptions) *Anthropic {
	return &Anthropic{name: o.Name, baseURL: strings.TrimRight(o.BaseURL, "/"), apiKey: o.APIKey,
		client: o.Client, userAgent: o.UserAgent}
}

// Name implements Provider.
func (p *Anthropic) Name() string { return p.name }

// Type implements Provider.
func (p *Anthropic) Type() string { return "anthropic" }

// Shape implements Provider.
func (p *Anthropic) Shape() Shape { return ShapeMessages }

// StreamUsageOption implements Provider: Anthropic streams always carry
// usage.
func (p *Anthropic) StreamUsageOption() bool { return false }

// Supports implements Provider.
func (p *Anthropic) Supports(ep Endpoint) bool {
	switch ep {
	case EndpointMessages, EndpointCountTokens, EndpointModels:
		return true
	}
	return false
}

func (p *Anthropic) setHeaders(h http.Header) {
	h.Set("anthropic-version", AnthropicVersion)
	if p.apiKey != "" {
		h.Set("x-api-key", p.apiKey)
	}
	if p.userAgent != "" {
		h.Set("User-Agent", p.userAgent)
	}
}

// Do implements Provider.
func (p *Anthropic) Do(ctx context.Context, ep Endpoint, _ string, body []byte) (*http.Response, error) {
	if !p.Supports(ep) || ep == EndpointModels {
		return nil, fmt.Errorf("anthropic does not serve %s", ep)
	}
	return postJSON(ctx, p.client, p.baseURL+"/"+string(ep), body, p.setHeaders)
}

// ListModels implements Provider, following Anthropic's pagination.
func (p *Anthropic) ListModels(ctx context.Context) ([]Model, error) {
	var models []Model
	after := ""
	for page := 0; page < 20; page++ {
		u := p.baseURL + "/models?limit=1000"
		if after != "" {
			u += "&after_id=" + url.QueryEscape(after)
		}
		body, err := getListing(ctx, p.client, u, p.setHeaders)
		if err != nil {
			return nil, err
		}
		data := gjson.GetBytes(body, "data")
		if !data.IsArray() {
			return nil, fmt.Errorf("model listing: no data array in response")
		}
		data.ForEach(func(_, m gjson.Result) bool {
			if id := m.Get("id").String(); id != "" {
				var created int64
				if t, err := time.Parse(time.RFC3339, m.Get("created_at").String()); err == nil {
					created = t.Unix()
				}
				models = append(models, Model{ID: id, Created: created, OwnedBy: "anthropic"})
			}
			return true
		})
		if !gjson.GetBytes(body, "has_more").Bool() {
			break
		}
		if after = gjson.GetBytes(body, "last_id").String(); after == "" {
			break
		}
	}
	return models, nil
}
