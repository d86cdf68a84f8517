package mock

import "time"

// DefaultEmbeddingDimensions is the embedding vector length used when
// neither Options.EmbeddingDimensions nor the request's "dimensions" is set.
const DefaultEmbeddingDimensions = 16

// maxEmbeddingDimensions bounds the "dimensions" request field and
// Options.EmbeddingDimensions.
const maxEmbeddingDimensions = 8192

// Options configures the mock model server. The zero value is usable.
type Options struct {
	// Latency is the delay before the first byte of every response. The wait
	// ends early, without a response, when the request context is cancelled.
	Latency time.Duration

	// ChunkDelay is the delay before each generated chunk of a stream
	// but the first (default 0). The usage chunk and [DONE] follow the
	// last generated chunk at once, as providers send them.
	ChunkDelay time.Duration

	// Models are the chat model ids served; default {"mock-chat", "mock-reasoner"}.
	Models []string

	// EmbeddingModels are the embedding model ids served; default {"mock-embedding"}.
	EmbeddingModels []string

	// SpeechModels are the text-to-speech model ids served; default
	// {"mock-tts"}.
	SpeechModels []string

	// TranscriptionModels are the speech-to-text model ids served; default
	// {"mock-transcribe"}.
	TranscriptionModels []string

	// EmbeddingDimensions is the default embedding vector length; default 16.
	EmbeddingDimensions int

	// APIKey, if non-empty, is required as "Authorization: Bearer <APIKey>";
	// requests without it get a 401 OpenAI-shaped error.
	APIKey string
}

// withDefaults returns a copy of o with defaults filled in and the model
// slices copied, so later changes by the caller have no effect.
func (o Options) withDefaults() Options {
	if len(o.Models) == 0 {
		o.Models = []string{"mock-chat", "mock-reasoner"}
	} else {
		o.Models = append([]string(nil), o.Models...)
	}
	if len(o.EmbeddingModels) == 0 {
		o.EmbeddingModels = []string{"mock-embedding"}
	} else {
		o.EmbeddingModels = append([]string(nil), o.EmbeddingModels...)
	}
	o.SpeechModels = orDefault(o.SpeechModels, "mock-tts")
	o.TranscriptionModels = orDefault(o.TranscriptionModels, "mock-transcribe")
	if o.EmbeddingDimensions <= 0 {
		o.EmbeddingDimensions = DefaultEmbeddingDimensions
	}
	if o.EmbeddingDimensions > maxEmbeddingDimensions {
		o.EmbeddingDimensions = maxEmbeddingDimensions
	}
	if o.Latency < 0 {
		o.Latency = 0
	}
	if o.ChunkDelay < 0 {
		o.ChunkDelay = 0
	}
	return o
}

// orDefault returns a copy of ids, or {def} when ids is empty.
func orDefault(ids []string, def string) []string {
	if len(ids) == 0 {
		return []string{def}
	}
	return append([]string(nil), ids...)
}
