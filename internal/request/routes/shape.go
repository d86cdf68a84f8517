package routes

// Shape is what a route's requests are: the API shape a model endpoint
// accepts, or which part of the gateway answers the route itself.
type Shape uint8

// Shapes. ShapeNone is never declared; it is the zero value.
const (
	ShapeNone Shape = iota
	// ShapeHealth is the liveness probe.
	ShapeHealth
	// ShapeModels is the model listing.
	ShapeModels
	// ShapeSelfUsage is the caller's own usage, budgets and rate limits.
	ShapeSelfUsage
	// ShapeChat is an OpenAI chat completion.
	ShapeChat
	// ShapeResponses is an OpenAI Responses call.
	ShapeResponses
	// ShapeMessages is an Anthropic messages call.
	ShapeMessages
	// ShapeCountTokens is an Anthropic token count.
	ShapeCountTokens
	// ShapeEmbeddings is an OpenAI embeddings call.
	ShapeEmbeddings
	// ShapeSpeech is OpenAI text to speech.
	ShapeSpeech
	// ShapeTranscription is OpenAI speech to text.
	ShapeTranscription
	// ShapePassthrough is a provider's own API, relayed unchanged.
	ShapePassthrough
	// ShapeRealtime is a realtime WebSocket session.
	ShapeRealtime
	// ShapeFiles is a batch input file upload or read.
	ShapeFiles
	// ShapeBatch is a batch submission, listing, status or cancel.
	ShapeBatch
	// ShapeAdmin is the admin REST API.
	ShapeAdmin
	// ShapeDashboard is a dashboard page or static asset.
	ShapeDashboard
	// ShapeStoredResponse is a read or delete of a stored response.
	ShapeStoredResponse

	// NumShapes is one more than the largest Shape, for tables indexed by
	// shape.
	NumShapes
)

var shapeNames = [NumShapes]string{
	ShapeNone: "none", ShapeHealth: "health", ShapeModels: "models", ShapeSelfUsage: "self_usage",
	ShapeChat: "chat", ShapeResponses: "responses", ShapeMessages: "messages", ShapeCountTokens: "count_tokens",
	ShapeEmbeddings: "embeddings", ShapeSpeech: "speech", ShapeTranscription: "transcription",
	ShapePassthrough: "passthrough", ShapeRealtime: "realtime", ShapeFiles: "files", ShapeBatch: "batch",
	ShapeAdmin: "admin", ShapeDashboard: "dashboard", ShapeStoredResponse: "stored_response",
}

// String returns the shape's name.
func (s Shape) String() string {
	if s < NumShapes {
		return shapeNames[s]
	}
	return "unknown"
}
