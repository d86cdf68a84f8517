package translate

// ChatTarget is what a translated Chat Completions request must fit: the
// quirks of the OpenAI-compatible upstream it is sent to. The zero value
// is OpenAI's own API.
type ChatTarget struct {
	// LegacyMaxTokens sends the output cap as max_tokens instead of
	// max_completion_tokens, for upstreams that know only the older name.
	LegacyMaxTokens bool
	// NoStreamOptions leaves stream_options out of streamed requests, for
	// upstreams that refuse it (they then report no usage chunk).
	NoStreamOptions bool
}

// MaxTokensField is the member name of the output cap on this target.
func (t ChatTarget) MaxTokensField() string {
	if t.LegacyMaxTokens {
		return "max_tokens"
	}
	return "max_completion_tokens"
}

// WriteStream writes "stream":true and, unless the target refuses it,
// stream_options asking for the final usage chunk.
func (t ChatTarget) WriteStream(w *Writer) {
	w.Key("stream")
	w.Bool(true)
	if !t.NoStreamOptions {
		w.KeyRaw("stream_options", `{"include_usage":true}`)
	}
}
