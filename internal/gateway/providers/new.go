package providers

import (
	"fmt"
	"net/http"
)

// Options configure New.
type Options struct {
	// Name is the instance name used in `provider_name/model` selectors.
	Name string
	// Type is the provider type, a name from the provider-type table.
	Type string
	// BaseURL is the API root, e.g. https://api.openai.com/v1. For
	// deployment-style types it is the resource endpoint, e.g.
	// https://NAME.openai.azure.com.
	BaseURL string
	// APIKey is the upstream credential; "" sends none.
	APIKey string
	// APIVersion is the api-version query parameter of deployment-style
	// types; "" uses the type's default.
	APIVersion string
	// Client sends the requests. Required. The adapter uses a copy that
	// never follows redirects, whatever its CheckRedirect.
	Client *http.Client
	// UserAgent is sent upstream when set.
	UserAgent string
}

// New returns the adapter for one instance of o.Type, chosen by the API
// shape the type speaks: Anthropic Messages, OpenAI Chat Completions or
// the voice provider's audio API. It
// refuses unknown types and types that are not served yet. No adapter
// follows a redirect: its calls answer with the redirect itself.
func New(o Options) (Provider, error) {
	t, ok := lookupType(o.Type)
	switch {
	case !ok:
		return nil, fmt.Errorf("unknown provider type %q", o.Type)
	case !t.Served:
		return nil, fmt.Errorf("provider type %q is not served yet", o.Type)
	case o.Client == nil:
		return nil, fmt.Errorf("provider %s: no HTTP client", o.Name)
	}
	o.Client = withoutRedirects(o.Client)
	switch t.Shape {
	case ShapeMessages:
		return newAnthropic(t, o), nil
	case ShapeChat:
		return newOpenAICompat(t, o), nil
	case ShapeAudio:
		return newElevenLabs(t, o), nil
	}
	return nil, fmt.Errorf("provider type %q has no adapter for its API shape", o.Type)
}
