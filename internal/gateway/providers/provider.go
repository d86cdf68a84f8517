// Package providers holds the upstream provider adapters, the registry of
// configured provider instances and the model index built from their model
// listings.
package providers

import (
	"context"
	"net/http"
)

// Endpoint names an upstream API operation, relative to the API root.
type Endpoint string

// Upstream API operations, named by their path below the API root.
const (
	EndpointChat       Endpoint = "chat/completions"
	EndpointEmbeddings Endpoint = "embeddings"
	EndpointModels     Endpoint = "models"
	// EndpointResponses is OpenAI's Responses API.
	EndpointResponses Endpoint = "responses"
	// EndpointMessages is Anthropic's Messages API.
	EndpointMessages Endpoint = "messages"
	// EndpointCountTokens is Anthropic's token counting endpoint.
	EndpointCountTokens Endpoint = "messages/count_tokens"
	// EndpointSpeech turns text into audio.
	EndpointSpeech Endpoint = "audio/speech"
	// EndpointTranscriptions turns audio into text.
	EndpointTranscriptions Endpoint = "audio/transcriptions"
)

// Shape is the API shape an upstream speaks natively.
type Shape int

// API shapes.
const (
	// ShapeChat is OpenAI Chat Completions.
	ShapeChat Shape = iota
	// ShapeMessages is Anthropic Messages.
	ShapeMessages
	// ShapeAudio is an upstream that serves only speech and transcription,
	// no text generation.
	ShapeAudio
)

// Model is one entry of a provider's model list.
type Model struct {
	// ID is the model id as the upstream names it.
	ID string
	// Created is the upstream's creation time (Unix seconds), 0 if unknown.
	Created int64
	// OwnedBy is the upstream's owner field.
	OwnedBy string
}

// Provider is one configured upstream instance.
type Provider interface {
	// Name is the instance name used in `provider_name/model` selectors.
	Name() string
	// Type is the provider family (openai, groq, mock, ...).
	Type() string
	// Do sends an OpenAI-shaped JSON body to ep for model and returns the
	// upstream response; the caller closes its body. The request is bound to
	// ctx, so cancelling ctx cancels the upstream call.
	Do(ctx context.Context, ep Endpoint, model string, body []byte) (*http.Response, error)
	// ListModels fetches the upstream's model list.
	ListModels(ctx context.Context) ([]Model, error)
	// StreamUsageOption reports whether the upstream understands
	// stream_options.include_usage on streamed chat completions.
	StreamUsageOption() bool
	// Shape is the API shape the upstream speaks for chat.
	Shape() Shape
	// Supports reports whether the upstream serves ep natively.
	Supports(ep Endpoint) bool
}
