// Package batches is the gateway's files and batches API: JSONL input
// files uploaded by callers, batches of chat-completion or embedding
// requests made from them, Anthropic message batches (their requests
// given inline, KindMessages), and the background runner that executes a
// batch line by line through the gateway's own model pipeline, at low
// priority and with bounded concurrency, or follows it on a provider's
// own batch API.
//
// Progress is persisted after every line (through the narrow Storage
// interface), so a batch interrupted by a restart resumes where it
// stopped. When a batch finishes (completed, cancelled or failed) the
// runner writes its output and error files and records one usage record
// per answered line, whether or not anyone fetches the results.
//
// The package does not import Caddy.
package batches
