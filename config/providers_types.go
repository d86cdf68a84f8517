package config

// DefaultAzureAPIVersion is the api-version query parameter used for azure
// providers that do not set api_version.
const DefaultAzureAPIVersion = "2024-10-21"

// providerType describes one provider family.
type providerType struct {
	name     string
	baseURL  string // "" when the type has no usable default
	needsKey bool
}

// providerTypes lists the known provider types. The order is the one shown
// to users in error messages.
var providerTypes = []providerType{
	{"openai", "https://api.openai.com/v1", true},
	{"azure", "", true},
	{"groq", "https://api.groq.com/openai/v1", true},
	{"xai", "https://api.x.ai/v1", true},
	{"deepseek", "https://api.deepseek.com/v1", true},
	{"openrouter", "https://openrouter.ai/api/v1", true},
	{"mistral", "https://api.mistral.ai/v1", true},
	{"ollama", "http://localhost:11434/v1", false},
	{"vllm", "http://localhost:8000/v1", false},
	{"gemini", "https://generativelanguage.googleapis.com/v1beta/openai", true},
	{"anthropic", "https://api.anthropic.com/v1", true},
	{"elevenlabs", "https://api.elevenlabs.io", true},
	{"mock", "", false},
}

func lookupType(t string) (providerType, bool) {
	for _, pt := range providerTypes {
		if pt.name == t {
			return pt, true
		}
	}
	return providerType{}, false
}

// KnownType reports whether t is a provider type the gateway can serve.
func KnownType(t string) bool {
	_, ok := lookupType(t)
	return ok
}

// KnownTypes returns the known provider types in a fixed order.
func KnownTypes() []string {
	out := make([]string, len(providerTypes))
	for i, pt := range providerTypes {
		out[i] = pt.name
	}
	return out
}

// DefaultBaseURL returns the built-in base URL of a provider type, or ""
// for azure (whose base URL must be configured), mock and unknown types.
func DefaultBaseURL(typ string) string {
	pt, _ := lookupType(typ)
	return pt.baseURL
}

// TypeNeedsKey reports whether providers of type t need an API key. It is
// false for ollama, vllm, mock and unknown types.
func TypeNeedsKey(t string) bool {
	pt, _ := lookupType(t)
	return pt.needsKey
}
