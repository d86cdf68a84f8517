package providers

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"
)

// AuthStyle says how an upstream expects its credential.
type AuthStyle int

// Credential styles.
const (
	// AuthBearer sends "Authorization: Bearer <key>".
	AuthBearer AuthStyle = iota
	// AuthAPIKeyHeader sends "api-key: <key>" (Azure OpenAI).
	AuthAPIKeyHeader
)

// OpenAICompat is the adapter for every upstream that speaks the OpenAI
// wire format: OpenAI, Azure OpenAI, Groq, xAI, DeepSeek, OpenRouter,
// Mistral, Ollama, vLLM, Gemini's OpenAI-compatible endpoint and the
// built-in mock.
type OpenAICompat struct {
	name       string
	typ        string
	baseURL    string
	apiKey     string
	auth       AuthStyle
	azure      bool
	apiVersion string
	streamOpt  bool
	client     *http.Client
	userAgent  string
}

// OpenAICompatOptions configure NewOpenAICompat.
type OpenAICompatOptions struct {
	// Name is the instance name.
	Name string
	// Type is the provider family.
	Type string
	// BaseURL is the API root, e.g. https://api.openai.com/v1. For Azure it
	// is the resource endpoint, e.g. https://NAME.openai.azure.com.
	BaseURL string
	// APIKey is the upstream credential ("" sends none).
	APIKey string
	// APIVersion is Azure's api-version query parameter.
	APIVersion string
	// Client sends the requests. Required.
	Client *http.Client
	// UserAgent is sent upstream.
	UserAgent string
}

// NewOpenAICompat returns an adapter for one OpenAI-compatible instance.
func NewOpenAICompat(o OpenAICompatOptions) *OpenAICompat {
	p := &OpenAICompat{
		name:       o.Name,
		typ:        o.Type,
		baseURL:    strings.TrimRight(o.BaseURL, "/"),
		apiKey:     o.APIKey,
		apiVersion: o.APIVersion,
		client:     o.Client,
		userAgent:  o.UserAgent,
		streamOpt:  true,
	}
	switch o.Type {
	case "azure":
		p.azure, p.auth = true, AuthAPIKeyHeader
	case "mistral":
		// Mistral reports usage on the last chunk unasked and rejects
		// unknown request fields.
		p.streamOpt = false
	}
	return p
}

// Name implements Provider.
func (p *OpenAICompat) Name() string { return p.name }

// Type implements Provider.
func (p *OpenAICompat) Type() string { return p.typ }

// Shape implements Provider.
func (p *OpenAICompat) Shape() Shape { return ShapeChat }

// Supports implements Provider: chat, embeddings and models everywhere;
// the Responses API natively only on OpenAI itself.
func (p *OpenAICompat) Supports(ep Endpoint) bool {
	switch ep {
	case EndpointChat, EndpointEmbeddings, EndpointModels:
		return true
	case EndpointResponses:
		return p.typ == "openai"
	}
	return false
}

// StreamUsageOption implements Provider.
func (p *OpenAICompat) StreamUsageOption() bool { return p.streamOpt }

// endpointURL returns the upstream URL of ep for model.
func (p *OpenAICompat) endpointURL(ep Endpoint, model string) string {
	if !p.azure {
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
	if p.apiKey == "" {
		return
	}
	switch p.auth {
	case AuthAPIKeyHeader:
		h.Set("api-key", p.apiKey)
	default:
		h.Set("Authorization", "Bearer "+p.apiKey)
	}
}

// Do implements Provider.
func (p *OpenAICompat) Do(ctx context.Context, ep Endpoint, model string, body []byte) (*http.Response, error) {
	return postJSON(ctx, p.client, p.endpointURL(ep, model), body, p.setHeaders)
}

// ListModels implements Provider. Gemini's "models/" id prefix is dropped
// so that ids match what its chat endpoint accepts.
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
		id := m.Get("id").String()
		if p.typ == "gemini" {
			id = strings.TrimPrefix(id, "models/")
		}
		if id != "" {
			models = append(models, Model{ID: id, Created: m.Get("created").Int(), OwnedBy: m.Get("owned_by").String()})
		}
		return true
	})
	return models, nil
}
