package reqbody

// Fields are the raw JSON values of the top-level members of a request
// body that the gateway reads; a nil slice means the member is absent.
// The slices alias the scanned body.
type Fields struct {
	// Model, Stream, StreamOptions and MaxTokens are acted on: a body that
	// repeats one of them is refused.
	Model, Stream, StreamOptions, MaxTokens []byte

	// Temperature, MaxCompletionTokens and MaxOutputTokens are recorded.
	Temperature, MaxCompletionTokens, MaxOutputTokens []byte
	// Metadata, PromptCacheKey and PreviousResponseID carry session hints.
	Metadata, PromptCacheKey, PreviousResponseID []byte
	// System and Instructions are the system prompt (Anthropic Messages and
	// Responses); Messages and Input the conversation (Chat Completions and
	// Messages, Responses).
	System, Instructions, Messages, Input []byte
	// Store is a Responses request's store flag: false keeps the
	// response from being stored.
	Store []byte
}

// acted reports whether a repeated member of this name is refused.
func acted(name string) bool {
	switch name {
	case "model", "stream", "stream_options", "max_tokens":
		return true
	}
	return false
}

// slot returns where the value of the quoted key goes and the member's
// name, or nil for a member the gateway does not read.
func (f *Fields) slot(quoted []byte) (*[]byte, string) {
	switch KeyName(quoted) {
	case "model":
		return &f.Model, "model"
	case "stream":
		return &f.Stream, "stream"
	case "stream_options":
		return &f.StreamOptions, "stream_options"
	case "max_tokens":
		return &f.MaxTokens, "max_tokens"
	case "temperature":
		return &f.Temperature, "temperature"
	case "max_completion_tokens":
		return &f.MaxCompletionTokens, "max_completion_tokens"
	case "max_output_tokens":
		return &f.MaxOutputTokens, "max_output_tokens"
	case "metadata":
		return &f.Metadata, "metadata"
	case "prompt_cache_key":
		return &f.PromptCacheKey, "prompt_cache_key"
	case "previous_response_id":
		return &f.PreviousResponseID, "previous_response_id"
	case "system":
		return &f.System, "system"
	case "instructions":
		return &f.Instructions, "instructions"
	case "messages":
		return &f.Messages, "messages"
	case "input":
		return &f.Input, "input"
	case "store":
		return &f.Store, "store"
	}
	return nil, ""
}
