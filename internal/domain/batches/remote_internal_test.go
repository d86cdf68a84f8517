package batches

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestRemoteResultChecksTheUsage: a provider-run batch's result line
// reporting a negative count is taken with that count as 0; one reporting
// an implausible count has no usage and no cost.
func TestRemoteResultChecksTheUsage(t *testing.T) {
	b := &Batch{ID: "batch_1", Provider: "oa", ProviderType: "openai"}
	index := map[string]int{"a": 0}
	line := func(usage string) []byte {
		return []byte(`{"custom_id":"a","response":{"status_code":200,"body":{"model":"gpt-4o-mini","usage":` + usage + `}}}`)
	}
	r, fault, err := remoteResult(b, line(`{"prompt_tokens":-4,"completion_tokens":3,"total_tokens":3}`), index)
	if err != nil || fault != catalog.UsageFaultNegative || !r.HasUsage ||
		r.Usage != (catalog.Usage{OutputTokens: 3, TotalTokens: 3}) {
		t.Fatalf("negative: %+v %q %v", r, fault, err)
	}
	r, fault, err = remoteResult(b, line(`{"prompt_tokens":9223372036854775807,"completion_tokens":3}`), index)
	if err != nil || fault != catalog.UsageFaultTooLarge || r.HasUsage || r.TotalCost != nil || !r.Usage.IsZero() {
		t.Fatalf("too large: %+v %q %v", r, fault, err)
	}
	r, fault, err = remoteResult(b, line(`{"prompt_tokens":4,"completion_tokens":3}`), index)
	if err != nil || fault != catalog.UsageFaultNone || !r.HasUsage || r.TotalCost == nil || *r.TotalCost <= 0 || r.CostSource != catalog.CostSourceCatalog {
		t.Fatalf("plausible: %+v %q %v", r, fault, err)
	}
}
