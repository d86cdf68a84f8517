package providers

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"
)

// OpenAICompat is the adapter for every upstream that speaks the OpenAI
// wire format: OpenAI, Azure OpenAI, Groq, xAI, DeepSeek, OpenRouter,
// Mistral, Ollama, vLLM, Gemini's OpenAI-compatible endpoint and the
// built-in mock. What differs between them (credential header, URLs,
// listing ids, stream options) comes from the type's table row.
type OpenAICompat struct {
	t          *TypeInfo
	name       string
	baseURL    string
	host       string // the base URL's host name (ServerAddress)
	auth       string // the AuthHeader value, "" when no key is configured
	key        string // the API key, removed from upstream error text
	apiVersion string
	client     *http.Client
	userAgent  string
}

func newOpenAICompat(t *TypeInfo, o Options) *OpenAICompat {
	p := &OpenAICompat{
		t:          t,
		name:       o.Name,
		baseURL:    strings.TrimRight(o.BaseURL, "/"),
		host:       hostOf(o.BaseURL),
		apiVersion: cmp.Or(o.APIVersion, t.DefaultAPIVersion),
		client:     o.Client,
		userAgent:  o.UserAgent,
	}
	if o.APIKey != "" {
		p.auth = t.authValue(o.APIKey)
		p.key = o.APIKey
	}
	return p
}

// Name implements Provider.
func (p *OpenAICompat) Name() string { return p.name }

// Type implements Provider.
func (p *OpenAICompat) Type() string { return p.t.Name }

// Shape implements Provider.
func (p *OpenAICompat) Shape() Shape { return p.t.Shape }

// Supports implements Provider with the type's endpoint list.
func (p *OpenAICompat) Supports(ep Endpoint) bool { return p.t.Supports(ep) }

// StreamUsageOption implements Provider.
func (p *OpenAICompat) StreamUsageOption() bool { return p.t.StreamUsageOption }

// endpointURL returns the upstream URL of ep for model.
func (p *OpenAICompat) endpointURL(ep Endpoint, model string) string {
	if !p.t.Deployments {
		return p.baseURL + "/" + string(ep)
	}
	q := "?api-version=" + url.QueryEscape(p.apiVersion)
	if ep == EndpointModels {
		return p.baseURL + "/openai/models" + q
	}
	return p.baseURL + "/openai/deployments/" + url.PathEscape(model) + "/" + string(ep) + q
}

func (p *OpenAICompat) setHeaders(h http.Header) {
	if p.userAgent != "" {
		h.Set("User-Agent", p.userAgent)
	}
	if p.auth != "" {
		h.Set(p.t.AuthHeader, p.auth)
	}
}

// Do implements Provider.
func (p *OpenAICompat) Do(ctx context.Context, ep Endpoint, model string, body []byte) (*http.Response, error) {
	return postJSON(ctx, p.client, p.endpointURL(ep, model), body, p.setHeaders)
}

// DoParts implements PartsSender.
func (p *OpenAICompat) DoParts(ctx context.Context, ep Endpoint, model string, parts [][]byte) (*http.Response, error) {
	return postJSONParts(ctx, p.client, p.endpointURL(ep, model), parts, p.setHeaders)
}

// ListModels implements Provider. The type's model-id prefix is dropped so
// that ids match what its endpoints accept.
func (p *OpenAICompat) ListModels(ctx context.Context) ([]Model, error) {
	body, err := getListing(ctx, p.client, p.endpointURL(EndpointModels, ""), p.setHeaders)
	if err != nil {
		return nil, err
	}
	data := gjson.GetBytes(body, "data")
	if !data.IsArray() {
		return nil, fmt.Errorf("model listing: no data array in response")
	}
	var models []Model
	data.ForEach(func(_, m gjson.Result) bool {
		id := strings.TrimPrefix(m.Get("id").String(), p.t.ModelIDPrefix)
		if id != "" {
			models = append(models, Model{ID: id, Created: m.Get("created").Int(), OwnedBy: m.Get("owned_by").String()})
		}
		return true
	})
	return models, nil
}
