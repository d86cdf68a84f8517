package providers

import "strings"

// TypeInfo describes one provider type: what an instance of it needs, where
// its API lives, how it is spoken to and which quirks the gateway must
// respect. Every fact the gateway knows about a type is read from its row;
// no other code compares type names.
type TypeInfo struct {
	// Name is the type as written in configuration ("openai").
	Name string

	// Served is false for a type declared ahead of its adapter:
	// configuring it is valid, but its instances are skipped with a
	// warning and New refuses it.
	Served bool

	// InProcess types are answered by the built-in simulator, never over
	// the network: they need neither a key nor a base URL, and only they
	// accept a simulated latency.
	InProcess bool

	// DefaultBaseURL is the API root an instance uses when it sets none.
	// It is empty when there is no usable default: for deployment-style
	// types the root is the operator's own resource, which must be
	// configured; in-process types need none.
	DefaultBaseURL string

	// NeedsKey says whether an instance must have an API key. Types
	// without it (self-hosted servers, the simulator) send a key only when
	// one is configured.
	NeedsKey bool

	// AuthHeader is the request header that carries the API key.
	AuthHeader string

	// AuthScheme, when set, precedes the key in AuthHeader, separated by a
	// space ("Bearer" sends "Bearer <key>"); empty sends the key alone.
	AuthScheme string

	// EnvPrefix names the environment variables that register instances of
	// the type: <prefix>_API_KEY, <prefix>_BASE_URL and, for further
	// instances, <prefix>_<SUFFIX>_API_KEY and <prefix>_<SUFFIX>_BASE_URL.
	// Empty means the environment cannot register the type.
	EnvPrefix string

	// Shape is the API shape the upstream speaks natively.
	Shape Shape

	// Endpoints are the operations the upstream serves natively. The
	// slice is shared with the table: read it, never modify it.
	Endpoints []Endpoint

	// MaxTokensField is the request field that caps output tokens on the
	// type's native chat or messages endpoint: max_completion_tokens on
	// OpenAI and Azure OpenAI, max_tokens everywhere else. Empty for types
	// without a text-generation endpoint.
	MaxTokensField string

	// StreamUsageOption says whether streamed chat requests may carry
	// stream_options.include_usage. It is false where the upstream refuses
	// the field or reports usage on its own.
	StreamUsageOption bool

	// Deployments marks deployment-style URLs: the model names a
	// deployment in the path (<base>/openai/deployments/<model>/<endpoint>),
	// the model listing is <base>/openai/models, and every request carries
	// the api-version query parameter.
	Deployments bool

	// DefaultAPIVersion is the api-version sent when an instance sets
	// none. Only deployment-style types have one.
	DefaultAPIVersion string

	// ModelIDPrefix is removed from the ids of the upstream's model
	// listing so that they match what its endpoints accept (Gemini lists
	// "models/gemini-2.5-flash" but is called with "gemini-2.5-flash").
	ModelIDPrefix string
}

// Supports reports whether the type's upstream serves ep natively.
func (t *TypeInfo) Supports(ep Endpoint) bool {
	for _, e := range t.Endpoints {
		if e == ep {
			return true
		}
	}
	return false
}

// DefaultBaseURLHasV1 reports whether the default base URL already ends in
// the /v1 version segment, so that a path the client writes with a leading
// v1/ must not add a second one. It is false when there is no default.
func (t *TypeInfo) DefaultBaseURLHasV1() bool {
	return strings.HasSuffix(t.DefaultBaseURL, "/v1")
}

// authValue is the AuthHeader value that carries key.
func (t *TypeInfo) authValue(key string) string {
	if t.AuthScheme == "" {
		return key
	}
	return t.AuthScheme + " " + key
}

// Credential headers and output-token fields used by the table.
const (
	headerAuthorization = "Authorization"
	schemeBearer        = "Bearer"
	maxTokens           = "max_tokens"
	maxCompletionTokens = "max_completion_tokens"
)

// Endpoint sets shared by several rows.
var (
	chatFamilyEndpoints = []Endpoint{EndpointChat, EndpointEmbeddings, EndpointModels}
	audioEndpoints      = []Endpoint{EndpointSpeech, EndpointTranscriptions}
)

// openAICompatible returns the row of a type that speaks the OpenAI wire
// format with a bearer key, the common case the other rows adjust.
func openAICompatible(name, baseURL string) TypeInfo {
	return TypeInfo{
		Name:              name,
		Served:            true,
		DefaultBaseURL:    baseURL,
		NeedsKey:          true,
		AuthHeader:        headerAuthorization,
		AuthScheme:        schemeBearer,
		EnvPrefix:         strings.ToUpper(name),
		Shape:             ShapeChat,
		Endpoints:         chatFamilyEndpoints,
		MaxTokensField:    maxTokens,
		StreamUsageOption: true,
	}
}

// typeTable lists the provider types in the order in which environment
// variables register their instances; the simulator comes last.
var typeTable = []TypeInfo{
	func() TypeInfo {
		t := openAICompatible("openai", "https://api.openai.com/v1")
		t.Endpoints = []Endpoint{EndpointChat, EndpointEmbeddings, EndpointModels, EndpointResponses,
			EndpointSpeech, EndpointTranscriptions, EndpointRealtime, EndpointBatches}
		t.MaxTokensField = maxCompletionTokens
		return t
	}(),
	{
		Name:           "anthropic",
		Served:         true,
		DefaultBaseURL: "https://api.anthropic.com/v1",
		NeedsKey:       true,
		AuthHeader:     "x-api-key",
		EnvPrefix:      "ANTHROPIC",
		Shape:          ShapeMessages,
		Endpoints:      []Endpoint{EndpointMessages, EndpointCountTokens, EndpointModels, EndpointBatches},
		MaxTokensField: maxTokens,
		// Messages streams report usage unasked.
		StreamUsageOption: false,
	},
	func() TypeInfo {
		t := openAICompatible("gemini", "https://generativelanguage.googleapis.com/v1beta/openai")
		t.ModelIDPrefix = "models/"
		return t
	}(),
	openAICompatible("groq", "https://api.groq.com/openai/v1"),
	func() TypeInfo {
		t := openAICompatible("xai", "https://api.x.ai/v1")
		// Grok's voice agent: OpenAI's realtime events at <base>/realtime.
		t.Endpoints = append(append([]Endpoint(nil), chatFamilyEndpoints...), EndpointRealtime)
		return t
	}(),
	openAICompatible("deepseek", "https://api.deepseek.com/v1"),
	openAICompatible("openrouter", "https://openrouter.ai/api/v1"),
	func() TypeInfo {
		t := openAICompatible("mistral", "https://api.mistral.ai/v1")
		// Mistral reports usage on the last chunk unasked and refuses
		// unknown request fields.
		t.StreamUsageOption = false
		return t
	}(),
	{
		Name:           "elevenlabs",
		Served:         true,
		DefaultBaseURL: "https://api.elevenlabs.io",
		NeedsKey:       true,
		AuthHeader:     "xi-api-key",
		EnvPrefix:      "ELEVENLABS",
		Shape:          ShapeAudio,
		Endpoints:      audioEndpoints,
	},
	func() TypeInfo {
		t := openAICompatible("azure", "")
		t.AuthHeader, t.AuthScheme = "api-key", ""
		t.Deployments = true
		t.DefaultAPIVersion = "2024-10-21"
		t.MaxTokensField = maxCompletionTokens
		return t
	}(),
	func() TypeInfo {
		t := openAICompatible("ollama", "http://localhost:11434/v1")
		t.NeedsKey = false
		return t
	}(),
	func() TypeInfo {
		t := openAICompatible("vllm", "http://localhost:8000/v1")
		t.NeedsKey = false
		return t
	}(),
	func() TypeInfo {
		t := openAICompatible("mock", "")
		t.InProcess, t.NeedsKey, t.EnvPrefix = true, false, ""
		t.Endpoints = append(append([]Endpoint(nil), chatFamilyEndpoints...), EndpointSpeech, EndpointTranscriptions, EndpointRealtime)
		return t
	}(),
}

// typeIndex maps a type name to its row in typeTable.
var typeIndex = func() map[string]*TypeInfo {
	m := make(map[string]*TypeInfo, len(typeTable))
	for i := range typeTable {
		m[typeTable[i].Name] = &typeTable[i]
	}
	return m
}()

// LookupType returns the row of the provider type named name (names are
// case-sensitive) and whether there is one.
func LookupType(name string) (TypeInfo, bool) {
	if t, ok := typeIndex[name]; ok {
		return *t, true
	}
	return TypeInfo{}, false
}

// lookupType is LookupType without the copy, for adapters that keep their
// row for their whole life.
func lookupType(name string) (*TypeInfo, bool) {
	t, ok := typeIndex[name]
	return t, ok
}

// Types returns every provider type's row, in the order environment
// variables register instances (the simulator last).
func Types() []TypeInfo {
	out := make([]TypeInfo, len(typeTable))
	copy(out, typeTable)
	return out
}

// TypeNames returns the names of every provider type, in the order of
// Types.
func TypeNames() []string {
	out := make([]string, len(typeTable))
	for i := range typeTable {
		out[i] = typeTable[i].Name
	}
	return out
}

// MaxTokensFieldOf returns the request field that caps output tokens on
// Chat Completions upstreams of the type named name: max_tokens unless the
// type's row says max_completion_tokens (an unknown type gets max_tokens).
func MaxTokensFieldOf(name string) string {
	if t, ok := lookupType(name); ok && t.MaxTokensField != "" {
		return t.MaxTokensField
	}
	return maxTokens
}
