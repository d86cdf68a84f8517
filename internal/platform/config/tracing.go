package config

// Tracing says what the gateway adds to OpenTelemetry traces, when Caddy's
// tracing directive is on the site. The attributes of each request are
// always added then; these switch on what goes beyond them.
type Tracing struct {
	// CaptureContent puts the request's messages and the answer on the
	// request's span (gen_ai.input.messages, gen_ai.output.messages), with
	// credentials masked as in stored bodies and each capped at 64 KiB.
	// Default off: prompts stay out of traces. Env TRACING_CAPTURE_CONTENT.
	CaptureContent *bool `yaml:"capture_content,omitempty" json:"capture_content,omitempty"`
	// PropagateUpstream sends the request's trace context (traceparent,
	// tracestate) to the providers it calls. Default off: providers are
	// third parties. Env TRACING_PROPAGATE_UPSTREAM.
	PropagateUpstream *bool `yaml:"propagate_upstream,omitempty" json:"propagate_upstream,omitempty"`
}

// CaptureContentOn reports whether CaptureContent is on (off when unset).
func (t Tracing) CaptureContentOn() bool { return t.CaptureContent != nil && *t.CaptureContent }

// PropagateUpstreamOn reports whether PropagateUpstream is on (off when
// unset).
func (t Tracing) PropagateUpstreamOn() bool {
	return t.PropagateUpstream != nil && *t.PropagateUpstream
}
