package audit

import (
	"encoding/json"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Entry is the audit record of one request. Its JSON form is the audit
// entry of the admin API.
type Entry struct {
	// ID identifies the entry; its time is the entry's time for ordering,
	// time windows and aggregates.
	ID ID `json:"id"`
	// RequestID is the request's id as the gateway or the client named it.
	RequestID string `json:"request_id"`
	// SessionID is the detected session (see DetectSession), "" if none.
	// Sessions belong to a user path: the same id under two user paths is
	// two sessions.
	SessionID string `json:"session_id"`
	// WorkflowVersionID names the gateway configuration that served the
	// request, "" if unknown.
	WorkflowVersionID string `json:"workflow_version_id"`
	// Timestamp is when the gateway received the request.
	Timestamp time.Time `json:"timestamp"`
	// Method is the HTTP method.
	Method string `json:"method"`
	// Path is the request path, without the query.
	Path string `json:"path"`
	// StatusCode is the status sent to the client; 0 when the client went
	// away before any status was sent.
	StatusCode int `json:"status_code"`
	// DurationNs is the time from receiving the request to the end of the
	// answer, in nanoseconds.
	DurationNs int64 `json:"duration_ns"`
	// Stream reports whether the answer was streamed.
	Stream bool `json:"stream"`
	// AliasUsed reports whether the requested model was a virtual model.
	AliasUsed bool `json:"alias_used"`
	// AuthKeyID is the managed key's id, "" for the master key or none.
	AuthKeyID string `json:"auth_key_id"`
	// AuthKeyName is the managed key's name, filled in when the admin API
	// reads the entry (keys can be renamed: the current name); "" for
	// the master key, no key, or a key since deleted. Storage ignores it.
	AuthKeyName string `json:"auth_key_name"`
	// AuthMethod is master_key, api_key or none.
	AuthMethod string `json:"auth_method"`
	// PrincipalID names the caller (the managed key's id, "master" for the
	// master key), "" when unauthenticated.
	PrincipalID string `json:"principal_id"`
	// ClientIP is the client's address as the server saw it.
	ClientIP string `json:"client_ip"`
	// BodiesOmitted reports that bodies were not recorded because body
	// logging is off.
	BodiesOmitted bool `json:"bodies_omitted"`
	// SecretsRedacted counts the credentials masked in the recorded bodies
	// (see Redactor.MaskSecrets); 0 when none were found or masking is
	// off (logging.redact_secrets).
	SecretsRedacted int `json:"secrets_redacted"`
	// ConversationPayload reports that the request carried a conversation
	// (chat messages, Anthropic messages or Responses input).
	ConversationPayload bool `json:"conversation_payload"`
	// CacheType is "exact" when the response cache answered, else "".
	CacheType string `json:"cache_type"`
	// ErrorType is the gateway error type of a failed request, else "".
	ErrorType string `json:"error_type"`
	// Provider is the type of the provider that served the request.
	Provider string `json:"provider"`
	// ProviderName is the provider instance that served the request.
	ProviderName string `json:"provider_name"`
	// RequestedModel is the model the client asked for.
	RequestedModel string `json:"requested_model"`
	// ResolvedModel is the model the provider was asked for.
	ResolvedModel string `json:"resolved_model"`
	// UserPath is the caller's user path.
	UserPath string `json:"user_path"`
	// Usage is the request's token usage.
	Usage EntryUsage `json:"usage"`
	// Cost is what the request cost and where the figure comes from;
	// null when it is unknown (no usage, or neither the provider nor the
	// catalog priced it).
	Cost *EntryCost `json:"cost"`
	// Data holds the details; lists leave its bodies out (see
	// Data.WithoutBodies).
	Data *Data `json:"data"`
}

// IsCacheHit reports whether the response cache answered the request.
func (e *Entry) IsCacheHit() bool { return e.CacheType != "" }

// ReachedProvider reports whether a provider produced the answer: one of
// the entry's upstream calls succeeded. A response-cache hit, a refusal
// and an answer the gateway made itself (the input-token estimate of
// count_tokens on a provider without a native counter, which still names
// the provider the model resolved to) did not reach one.
func (e *Entry) ReachedProvider() bool {
	if e.Data == nil {
		return false
	}
	for i := range e.Data.Attempts {
		if e.Data.Attempts[i].Success {
			return true
		}
	}
	return false
}

// EntryUsage is the usage object of an audit entry: the token counts plus
// what is derived from them.
type EntryUsage struct {
	catalog.Usage
	// UncachedInputTokens is InputTokens minus CachedInputTokens.
	UncachedInputTokens int64 `json:"uncached_input_tokens"`
	// CachedInputRatio is CachedInputTokens / InputTokens, 0 without input.
	CachedInputRatio float64 `json:"cached_input_ratio"`
	// Entries counts the usage records behind these counts: 1 for a
	// completed request that reported usage, else 0.
	Entries int64 `json:"entries"`
	// EstimatedCachedCharacters estimates the prompt characters read from
	// a provider cache (4 per cached token).
	EstimatedCachedCharacters int64 `json:"estimated_cached_characters"`
	// RewriteTokensSaved counts tokens removed by request rewriters.
	RewriteTokensSaved int64 `json:"rewrite_tokens_saved"`
	// RewriteCostSaved is the cost those tokens would have had.
	RewriteCostSaved float64 `json:"rewrite_cost_saved"`
}

// charsPerToken is the estimate behind EstimatedCachedCharacters.
const charsPerToken = 4

// UsageOf returns the usage object for u, counting one usage record
// unless u is zero.
func UsageOf(u catalog.Usage) EntryUsage {
	eu := EntryUsage{Usage: u}
	eu.UncachedInputTokens = max(0, u.InputTokens-u.CachedInputTokens)
	if u.InputTokens > 0 {
		eu.CachedInputRatio = float64(u.CachedInputTokens) / float64(u.InputTokens)
	}
	if !u.IsZero() {
		eu.Entries = 1
	}
	eu.EstimatedCachedCharacters = u.CachedInputTokens * charsPerToken
	return eu
}

// Data is the audit data object: the details of one request.
type Data struct {
	// APIKeyHash is the first 16 hex characters of the SHA-256 of the
	// caller's credential (see APIKeyHash), never the credential.
	APIKeyHash string `json:"api_key_hash"`
	// Attempts lists every upstream call, in order.
	Attempts []Attempt `json:"attempts"`
	// ErrorCode is the gateway error code of a failed request.
	ErrorCode string `json:"error_code"`
	// ErrorMessage is the gateway error message of a failed request.
	ErrorMessage string `json:"error_message"`
	// EventType says what was recorded: request, realtime_session or
	// batch.
	EventType string `json:"event_type"`
	// Failover names the model failover switched to; absent without
	// failover.
	Failover *Failover `json:"failover,omitempty"`
	// Labels are free-form tags.
	Labels []string `json:"labels"`
	// MaxTokens is the request's output cap; absent when not sent.
	MaxTokens *int64 `json:"max_tokens,omitempty"`
	// RequestBody is the request body (see CaptureBody); null when not
	// recorded. A JSON body is recorded as the client sent it, unvalidated:
	// storage implementations read recorded bodies back through
	// ReadableBody, so that what they return is always valid JSON.
	RequestBody json.RawMessage `json:"request_body"`
	// RequestBodyTooBigToHandle reports a request body over the size cap,
	// left out.
	RequestBodyTooBigToHandle bool `json:"request_body_too_big_to_handle"`
	// RequestHeaders are the request headers, redacted (see Redactor).
	RequestHeaders map[string]string `json:"request_headers"`
	// RequestRevisions lists the changes rewriters made to the request.
	RequestRevisions []Revision `json:"request_revisions"`
	// ResponseBody is the response body; a stream is stored as the final
	// object it adds up to. Null when not recorded. Like RequestBody, a
	// JSON answer is recorded unvalidated (see ReadableBody).
	ResponseBody json.RawMessage `json:"response_body"`
	// ResponseBodyTooBigToHandle reports a response body over the size
	// cap, left out.
	ResponseBodyTooBigToHandle bool `json:"response_body_too_big_to_handle"`
	// ResponseHeaders are the response headers, redacted.
	ResponseHeaders map[string]string `json:"response_headers"`
	// Temperature is the request's sampling temperature; absent when not
	// sent.
	Temperature *float64 `json:"temperature,omitempty"`
	// UserAgent is the client's User-Agent header.
	UserAgent string `json:"user_agent"`
	// WorkflowFeatures says which gateway features were on for the
	// request.
	WorkflowFeatures WorkflowFeatures `json:"workflow_features"`
}

// WithoutBodies returns a copy of d without request, response, revision
// and attempt bodies: what lists show. Headers and everything else stay.
func (d *Data) WithoutBodies() *Data {
	if d == nil {
		return nil
	}
	c := *d
	c.RequestBody, c.ResponseBody = nil, nil
	if d.Attempts != nil {
		c.Attempts = make([]Attempt, len(d.Attempts))
		for i, a := range d.Attempts {
			a.ResponseBody = nil
			c.Attempts[i] = a
		}
	}
	if d.RequestRevisions != nil {
		c.RequestRevisions = make([]Revision, len(d.RequestRevisions))
		for i, r := range d.RequestRevisions {
			r.Body = nil
			c.RequestRevisions[i] = r
		}
	}
	return &c
}

// fillLists makes d's absent lists and header objects empty ones, so that
// reads show them as [] and {} rather than null: the audit data object's
// lists are arrays and its headers, and an attempt's, objects. A nil d is
// left as it is.
func (d *Data) fillLists() {
	if d == nil {
		return
	}
	if d.Attempts == nil {
		d.Attempts = []Attempt{}
	}
	if d.Labels == nil {
		d.Labels = []string{}
	}
	if d.RequestRevisions == nil {
		d.RequestRevisions = []Revision{}
	}
	if d.RequestHeaders == nil {
		d.RequestHeaders = map[string]string{}
	}
	if d.ResponseHeaders == nil {
		d.ResponseHeaders = map[string]string{}
	}
	for i := range d.Attempts {
		if d.Attempts[i].ResponseHeaders == nil {
			d.Attempts[i].ResponseHeaders = map[string]string{}
		}
	}
}

// Failover is the failover object of the audit data.
type Failover struct {
	// TargetModel is the model failover switched to.
	TargetModel string `json:"target_model"`
}

// WorkflowFeatures says which features were on for a request.
type WorkflowFeatures struct {
	// Audit: the request was audited.
	Audit bool `json:"audit"`
	// Budget: budgets were enforced.
	Budget bool `json:"budget"`
	// Cache: the response cache was consulted.
	Cache bool `json:"cache"`
	// Failover: failover rules applied to the requested model.
	Failover bool `json:"failover"`
	// Guardrails: guardrails checked the request.
	Guardrails bool `json:"guardrails"`
	// Usage: a usage record was kept.
	Usage bool `json:"usage"`
}

// Attempt kinds.
const (
	// AttemptPrimary is the first call to the resolved target.
	AttemptPrimary = "primary"
	// AttemptFailover is a call to a failover target.
	AttemptFailover = "failover"
)

// Attempt is one upstream call of a request.
type Attempt struct {
	// DurationNs is the call's time in nanoseconds, up to the end of the
	// answer.
	DurationNs int64 `json:"duration_ns"`
	// ErrorCode is the error code of a failed call.
	ErrorCode string `json:"error_code"`
	// ErrorMessage is the error message of a failed call.
	ErrorMessage string `json:"error_message"`
	// ErrorType is the gateway error type of a failed call.
	ErrorType string `json:"error_type"`
	// Kind is AttemptPrimary or AttemptFailover.
	Kind string `json:"kind"`
	// Model is the model asked of the provider.
	Model string `json:"model"`
	// ProviderName is the provider instance called.
	ProviderName string `json:"provider_name"`
	// ProviderType is that instance's type.
	ProviderType string `json:"provider_type"`
	// ResponseBody is the body of a failed call's answer; null otherwise
	// (the request's ResponseBody holds the successful one).
	ResponseBody json.RawMessage `json:"response_body"`
	// ResponseHeaders are the upstream's response headers, redacted.
	ResponseHeaders map[string]string `json:"response_headers"`
	// Seq numbers the attempts from 1.
	Seq int `json:"seq"`
	// StartedAt is when the call started.
	StartedAt time.Time `json:"started_at"`
	// StatusCode is the upstream's status; 0 when none arrived.
	StatusCode int `json:"status_code"`
	// Success reports whether the call produced the answer.
	Success bool `json:"success"`
}

// Revision is one change a rewriter made to the request.
type Revision struct {
	// Body is the request body after the change; null when not recorded.
	Body json.RawMessage `json:"body"`
	// BytesAfter is the body size after the change.
	BytesAfter int64 `json:"bytes_after"`
	// BytesBefore is the body size before the change.
	BytesBefore int64 `json:"bytes_before"`
	// Detail is the rewriter's own account of the change.
	Detail json.RawMessage `json:"detail"`
	// NoChange reports that the rewriter left the body as it was.
	NoChange bool `json:"no_change"`
	// Rewriter names the rewriter.
	Rewriter string `json:"rewriter"`
	// Seq numbers the revisions from 1.
	Seq int `json:"seq"`
	// TokensSaved estimates the tokens the change removed.
	TokensSaved int64 `json:"tokens_saved"`
}
