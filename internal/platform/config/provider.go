package config

import "strings"

// Provider configures one upstream provider instance.
type Provider struct {
	// Name is the instance name used in `provider_name/model` selectors.
	// In YAML it is the map key; in JSON it is a field.
	Name string `yaml:"-" json:"name"`

	// Type is the provider family: openai, azure, groq, xai, deepseek,
	// openrouter, mistral, ollama, vllm, gemini, anthropic, elevenlabs or
	// mock. Defaults to the instance name when that is a known type.
	Type string `yaml:"type,omitempty" json:"type,omitempty"`

	// APIKey is the provider credential sent upstream. It is never logged
	// or returned by any endpoint.
	APIKey string `yaml:"api_key,omitempty" json:"api_key,omitempty"`

	// BaseURL overrides the type's default base URL.
	BaseURL string `yaml:"base_url,omitempty" json:"base_url,omitempty"`

	// Models is a configured model list: used when the upstream listing
	// fails or is empty, or exclusively when ModelsMode is allowlist.
	Models []string `yaml:"models,omitempty" json:"models,omitempty"`

	// ModelsMode is fallback (default) or allowlist.
	ModelsMode string `yaml:"models_mode,omitempty" json:"models_mode,omitempty"`

	// APIVersion is the Azure api-version query parameter.
	APIVersion string `yaml:"api_version,omitempty" json:"api_version,omitempty"`

	// TimeoutSeconds bounds the wait for an upstream's response headers
	// and, for a non-streamed answer, the whole answer; a slower upstream
	// gets 504. Default 300.
	TimeoutSeconds int `yaml:"timeout_seconds,omitempty" json:"timeout_seconds,omitempty"`

	// LatencyMS delays every response of the mock provider, before its
	// first byte, by this many milliseconds.
	LatencyMS int `yaml:"latency_ms,omitempty" json:"latency_ms,omitempty"`

	// ReadIdleTimeoutMS is the longest silence, in milliseconds, between
	// two reads of an upstream answer or stream once its headers arrived;
	// the request then ends with 504 upstream_timeout, or with an error
	// event on a stream already started. 0 or less: 60000 (one minute).
	ReadIdleTimeoutMS int `yaml:"read_idle_timeout_ms,omitempty" json:"read_idle_timeout_ms,omitempty"`

	// MaxResponseBytes caps a non-streamed upstream answer; a larger one
	// gets 502 upstream_response_too_large. 0 or less: 64 MiB.
	MaxResponseBytes int64 `yaml:"max_response_bytes,omitempty" json:"max_response_bytes,omitempty"`

	// MaxEventBytes caps one event of an upstream stream; a larger one
	// ends the stream with an upstream_response_too_large error event.
	// 0 or less: 8 MiB.
	MaxEventBytes int64 `yaml:"max_event_bytes,omitempty" json:"max_event_bytes,omitempty"`
}

// Providers is an ordered list of provider instances. In YAML it is written
// as a map from name to settings; the order of the keys is kept.
type Providers []Provider

// Get returns the provider with the given name and whether it exists.
func (ps Providers) Get(name string) (Provider, bool) {
	for _, p := range ps {
		if p.Name == name {
			return p, true
		}
	}
	return Provider{}, false
}

// Has reports whether a provider of this name exists, the name compared
// without regard to case, as provider rate-limit rules match it.
func (ps Providers) Has(name string) bool {
	for _, p := range ps {
		if strings.EqualFold(p.Name, name) {
			return true
		}
	}
	return false
}

// Names returns the providers' names in order.
func (ps Providers) Names() []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Name
	}
	return out
}
