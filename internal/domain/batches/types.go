package batches

import (
	"encoding/json"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Batch statuses, as OpenAI's batch API names them.
const (
	StatusValidating = "validating"
	StatusFailed     = "failed"
	StatusInProgress = "in_progress"
	StatusFinalizing = "finalizing"
	StatusCompleted  = "completed"
	StatusCancelling = "cancelling"
	StatusCancelled  = "cancelled"
	StatusExpired    = "expired"
)

// PurposeBatch is the only file purpose the gateway accepts.
const PurposeBatch = "batch"

// KindMessages marks an Anthropic message batch (POST
// /v1/messages/batches); an OpenAI batch (POST /v1/batches) has no kind.
// Each API sees only the batches of its own kind.
const KindMessages = "messages"

// purposeMessageBatch is the purpose of the file holding a message
// batch's requests: the gateway's own, never shown by the files API.
const purposeMessageBatch = "message_batch_requests"

// File is an uploaded file, or a batch's output or error file.
type File struct {
	// ID is the gateway's file id ("file-...").
	ID string `json:"id"`
	// UserPath owns the file; only callers of that path (and admins) see it.
	UserPath string `json:"user_path"`
	// Bytes is the content's length.
	Bytes int64 `json:"bytes"`
	// CreatedAt is when the file was stored, in Unix seconds.
	CreatedAt int64 `json:"created_at"`
	// Filename is the name the uploader gave, or the gateway's for output
	// files.
	Filename string `json:"filename"`
	// Purpose is "batch" for uploads, "batch_output" for results.
	Purpose string `json:"purpose"`
}

// Batch is one batch and its progress.
type Batch struct {
	// ID is the gateway's batch id ("batch_...", "msgbatch_..." for a
	// message batch).
	ID string `json:"id"`
	// Kind is KindMessages for an Anthropic message batch, "" for an
	// OpenAI batch.
	Kind string `json:"kind,omitempty"`
	// UserPath owns the batch and is charged its usage.
	UserPath string `json:"user_path"`
	// Endpoint is the API path every line calls.
	Endpoint string `json:"endpoint"`
	// InputFileID is the uploaded JSONL file (for a message batch, the
	// gateway's own file of its requests).
	InputFileID string `json:"input_file_id"`
	// CompletionWindow is the window the caller asked for ("24h").
	CompletionWindow string `json:"completion_window"`
	// Status is one of the Status* constants.
	Status string `json:"status"`
	// OutputFileID holds the answered lines once the batch is finished.
	OutputFileID string `json:"output_file_id,omitempty"`
	// ErrorFileID holds the failed lines once the batch is finished.
	ErrorFileID string `json:"error_file_id,omitempty"`
	// Metadata is the caller's key-value metadata.
	Metadata map[string]string `json:"metadata,omitempty"`
	// Total, Completed and Failed count the batch's lines.
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	// The times of the status changes, Unix seconds, 0 when not reached.
	CreatedAt    int64 `json:"created_at"`
	InProgressAt int64 `json:"in_progress_at,omitempty"`
	FinalizingAt int64 `json:"finalizing_at,omitempty"`
	CompletedAt  int64 `json:"completed_at,omitempty"`
	FailedAt     int64 `json:"failed_at,omitempty"`
	CancellingAt int64 `json:"cancelling_at,omitempty"`
	CancelledAt  int64 `json:"cancelled_at,omitempty"`
	ExpiresAt    int64 `json:"expires_at,omitempty"`
	// FailReason says why a batch failed before running any line.
	FailReason string `json:"fail_reason,omitempty"`
	// Provider is the provider instance running the batch with its own
	// batch API, "" when the gateway runs it.
	Provider string `json:"provider,omitempty"`
	// ProviderType is that provider's type.
	ProviderType string `json:"provider_type,omitempty"`
	// UpstreamID is that provider's batch id.
	UpstreamID string `json:"upstream_id,omitempty"`
	// UsageRecorded reports that the usage records of the finished batch
	// were handed to the audit recorder.
	UsageRecorded bool `json:"usage_recorded,omitempty"`
}

// Finished reports whether the batch has reached a final status.
func (b *Batch) Finished() bool {
	switch b.Status {
	case StatusCompleted, StatusCancelled, StatusFailed, StatusExpired:
		return true
	}
	return false
}

// Result is the outcome of one line of a batch.
type Result struct {
	// Line is the line's index among the file's request lines, from 0.
	Line int `json:"line"`
	// CustomID is the line's custom_id.
	CustomID string `json:"custom_id"`
	// StatusCode is the HTTP status the pipeline answered with; 0 when the
	// line never reached it.
	StatusCode int `json:"status_code"`
	// Body is the answer's JSON body.
	Body json.RawMessage `json:"body,omitempty"`
	// RequestID identifies the line's request ("req_...").
	RequestID string `json:"request_id"`
	// At is when the line finished.
	At time.Time `json:"at"`
	// ProviderName, ProviderType and Model are the target that executed
	// the line.
	ProviderName string `json:"provider_name,omitempty"`
	ProviderType string `json:"provider_type,omitempty"`
	Model        string `json:"model,omitempty"`
	// Usage is the line's token usage, when HasUsage.
	Usage    catalog.Usage `json:"usage"`
	HasUsage bool          `json:"has_usage,omitempty"`
	// InputCost, OutputCost and TotalCost are what the line cost; nil
	// when it is unknown (InputCost and OutputCost also when only the
	// provider's total is known; see audit.UsageRecord).
	InputCost  *float64 `json:"input_cost,omitempty"`
	OutputCost *float64 `json:"output_cost,omitempty"`
	TotalCost  *float64 `json:"total_cost,omitempty"`
	// CostSource says where the cost comes from (catalog.CostSource);
	// empty when it is unknown. A result stored before costs had a
	// source has none.
	CostSource catalog.CostSource `json:"cost_source,omitempty"`
}

// setCost records that the line cost b.
func (r *Result) setCost(b catalog.Breakdown) {
	var u audit.UsageRecord
	u.SetCost(b)
	r.InputCost, r.OutputCost, r.TotalCost, r.CostSource = u.InputCost, u.OutputCost, u.TotalCost, u.CostSource
}

// usageCost gives usage record u r's costs and their source.
func (r *Result) usageCost(u *audit.UsageRecord) {
	u.InputCost, u.OutputCost, u.TotalCost, u.CostSource = r.InputCost, r.OutputCost, r.TotalCost, r.CostSource
	u.FillCostSource()
}

// OK reports whether the line was answered successfully.
func (r *Result) OK() bool { return r.StatusCode >= 200 && r.StatusCode < 300 }
