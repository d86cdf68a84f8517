// Package mock is a deterministic, network-free model server that speaks the
// OpenAI wire format.
//
// It serves GET /v1/models, POST /v1/chat/completions (plain and streamed),
// POST /v1/embeddings, POST /v1/audio/speech and POST
// /v1/audio/transcriptions, with or without the "/v1" prefix. Answers depend
// only on the request: chat requests are echoed ("Echo: <last user text>"),
// tools are called only when the request asks for it (tool_choice
// "required" or naming a function, or the trigger "mock:call",
// "mock:call:<name>" or "mock:call:<a>,<b>" for parallel calls in the last
// user message; see CallTrigger), with arguments generated from each
// function's JSON schema, a response_format json_schema gets a JSON
// document valid against the schema, tool results are acknowledged, embeddings are pseudo-random unit vectors seeded from a
// hash of the input text, speech is a tone (wav, pcm) or silent MP3
// frames whose length follows the input text, and every transcription is
// one fixed sentence with word timings. Only the
// "created" timestamps vary between identical requests.
//
// The package is used in two ways: in-process, as modelgate's built-in
// "mock" provider, through the in-memory http.RoundTripper returned by
// NewTransport; and over real HTTP by cmd/mockupstream, for benchmarks and
// black-box tests. It imports nothing from Caddy, and of the rest of
// modelgate only package providers, for SleepCtx.
package mock
