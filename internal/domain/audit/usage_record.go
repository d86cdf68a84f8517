package audit

import (
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// CacheTypeExact is the cache_type of a request the response cache
// answered.
const CacheTypeExact = "exact"

// UsageRecord is the usage and cost of one completed request. Its JSON form
// is the usage record of the admin API: the token counts appear as fields
// of the record itself.
type UsageRecord struct {
	// ID identifies the record; its time is the record's time for ordering,
	// time windows and aggregates.
	ID ID `json:"id"`
	// RequestID is the id of the request's audit entry.
	RequestID ID `json:"request_id"`
	// Timestamp is when the request was received.
	Timestamp time.Time `json:"timestamp"`
	// UserPath is the caller's user path.
	UserPath string `json:"user_path"`
	// SessionID is the detected session, "" if none.
	SessionID string `json:"session_id"`
	// ProviderName is the provider instance that served the request.
	ProviderName string `json:"provider_name"`
	// ProviderType is that instance's type.
	ProviderType string `json:"provider_type"`
	// Model is the model that executed the request.
	Model string `json:"model"`
	// Endpoint is the API path called, such as /v1/chat/completions.
	Endpoint string `json:"endpoint"`
	// AuthKeyID is the managed key the request authenticated with, "" for
	// the master key or none. Records stored before it read "".
	AuthKeyID string `json:"auth_key_id"`
	// StatusCode is the status the request ended with (see
	// Entry.StatusCode); 0 when unknown (a record stored before it).
	StatusCode int `json:"status_code"`
	// DurationNs is the request's duration (see Entry.DurationNs); 0 when
	// unknown.
	DurationNs int64 `json:"duration_ns"`
	// CacheType is "exact" when the response cache answered, else "".
	// Such records count as requests and tokens but never as spend.
	CacheType string `json:"cache_type"`
	catalog.Usage
	// InputCost is the price of the input tokens; null when the model has
	// no price, or only the total is known (see TotalCost).
	InputCost *float64 `json:"input_cost"`
	// OutputCost is the price of the output tokens; null when the model
	// has no price.
	OutputCost *float64 `json:"output_cost"`
	// TotalCost is what the request cost: InputCost + OutputCost, or the
	// price the provider reported (which is split into input and output
	// costs only when the catalog prices the model); null when neither
	// the provider nor the catalog priced the request.
	TotalCost *float64 `json:"total_cost"`
	// CostAvoided is, for a response-cache hit, what it would have cost
	// had a provider answered (its usage priced by the catalog); null for
	// other records and when the model has no price.
	CostAvoided *float64 `json:"cost_avoided,omitempty"`
	// CostSource says where the cost comes from: provider, catalog or
	// override (catalog.CostSource); null when TotalCost is. A record
	// stored before costs had a source reads as catalog when priced
	// (FillCostSource).
	CostSource catalog.CostSource `json:"cost_source"`
}

// IsCacheHit reports whether the response cache answered the request.
func (r *UsageRecord) IsCacheHit() bool { return r.CacheType != "" }

// Spend is the record's cost as spend: TotalCost, or 0 when the model has
// no price or the response cache answered.
func (r *UsageRecord) Spend() float64 {
	if r.TotalCost == nil || r.IsCacheHit() {
		return 0
	}
	return *r.TotalCost
}
