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

// Anthropic is the adapter for upstreams that speak Anthropic's native
// Messages API; its credential header and endpoints come from the type's
// table row.
type Anthropic struct {
	t         *TypeInfo
	name      string
	baseURL   string
	host      string // the base URL's host name (ServerAddress)
	auth      string // the AuthHeader value, "" when no key is configured
	key       string // the API key, removed from upstream error text
	client    *http.Client
	userAgent string
}

func newAnthropic(t *TypeInfo, o Options) *Anthropic {
	p := &Anthropic{t: t, name: o.Name, baseURL: strings.TrimRight(o.BaseURL, "/"), host: hostOf(o.BaseURL),
		client: o.Client, userAgent: o.UserAgent}
	if o.APIKey != "" {
		p.auth, p.key = t.authValue(o.APIKey), o.APIKey
	}
	return p
}

// Name implements Provider.
func (p *Anthropic) Name() string { return p.name }

// Type implements Provider.
func (p *Anthropic) Type() string { return p.t.Name }

// Shape implements Provider.
func (p *Anthropic) Shape() Shape { return p.t.Shape }

// StreamUsageOption implements Provider: Messages streams always carry
// usage, so the type's row says no.
func (p *Anthropic) StreamUsageOption() bool { return p.t.StreamUsageOption }

// Supports implements Provider with the type's endpoint list.
func (p *Anthropic) Supports(ep Endpoint) bool { return p.t.Supports(ep) }

func (p *Anthropic) setHeaders(h http.Header) {
	h.Set("anthropic-version", AnthropicVersion)
	if p.auth != "" {
		h.Set(p.t.AuthHeader, p.auth)
	}
	if p.userAgent != "" {
		h.Set("User-Agent", p.userAgent)
	}
}

// Do implements Provider.
func (p *Anthropic) Do(ctx context.Context, ep Endpoint, _ string, body []byte) (*http.Response, error) {
	if !p.Supports(ep) || ep == EndpointModels {
		return nil, fmt.Errorf("%s does not serve %s", p.t.Name, ep)
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
