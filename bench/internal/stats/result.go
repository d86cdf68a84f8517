package stats

// Result is what one load generator run prints as JSON: the settings it
// ran with and what it measured in the measurement window (warm-up
// excluded).
type Result struct {
	// URL is the endpoint the requests went to.
	URL string `json:"url"`
	// Shape is "chat" (OpenAI /v1/chat/completions) or "messages"
	// (Anthropic /v1/messages).
	Shape string `json:"shape"`
	// Stream reports whether requests asked for a streamed answer.
	Stream bool `json:"stream"`
	// Concurrency is the number of workers: requests in flight in a
	// closed loop, the most in flight at a fixed rate.
	Concurrency int `json:"concurrency"`
	// Rate is the fixed request rate a second of an open-loop run; 0 for
	// a closed loop.
	Rate float64 `json:"rate,omitempty"`
	// LateStarts counts the measured requests of a fixed-rate run that
	// started more than a millisecond after they were due, because every
	// worker was busy: the rate was then not held.
	LateStarts int `json:"late_starts,omitempty"`
	// BodySize is the request body length in bytes.
	BodySize int `json:"body_size"`
	// WarmupS and DurationS are the configured phases, in seconds.
	WarmupS   float64 `json:"warmup_s"`
	DurationS float64 `json:"duration_s"`
	// ElapsedS runs from the end of the warm-up to the last measured
	// completion.
	ElapsedS float64 `json:"elapsed_s"`

	// OK counts measured requests answered 2xx with a complete body.
	OK int `json:"ok"`
	// Errors counts transport failures and truncated streams.
	Errors int `json:"errors"`
	// Non2xx counts answers with a status outside 200-299.
	Non2xx int `json:"non_2xx"`
	// StatusCodes counts every measured answer by status code.
	StatusCodes map[string]int `json:"status_codes,omitempty"`
	// FirstError is one example failure, for diagnosis.
	FirstError string `json:"first_error,omitempty"`
	// Sent counts every request the generator started, warm-up included:
	// what the server under test saw, for comparing with what it recorded.
	Sent int `json:"sent"`
	// Answered counts the requests of Sent that got a status line back,
	// warm-up included.
	Answered int `json:"answered"`

	// ThroughputRPS is OK / ElapsedS.
	ThroughputRPS float64 `json:"throughput_rps"`
	// Latency is the time from sending the request to reading the last
	// byte of the answer, over OK requests.
	Latency *Summary `json:"latency,omitempty"`
	// TTFT (streams only) is the time to the first server-sent event that
	// carries answer text.
	TTFT *Summary `json:"ttft,omitempty"`
	// TTLT (streams only) is the time to the last byte of the stream; the
	// same samples as Latency, named for streams.
	TTLT *Summary `json:"ttlt,omitempty"`
	// ResponseBytes is the mean answer body length.
	ResponseBytes int64 `json:"response_bytes"`
}
