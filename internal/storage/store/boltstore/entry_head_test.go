package boltstore

import (
	"reflect"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// TestHeadSizeHintHoldsTheHead: a gateway's entry (an SDK's headers, one
// attempt, a failed one with an error) is encoded without growing its
// buffer.
func TestHeadSizeHintHoldsTheHead(t *testing.T) {
	e, _ := benchEntry(time.Now(), 1, jsonBody(1024))
	e.RequestID = e.ID.String()
	e.ClientIP = "203.0.113.77"
	e.Data.UserAgent = "OpenAI/Python 1.99.9 (linux; x86_64) async:asyncio"
	e.Data.RequestHeaders = map[string]string{"content-length": "1024", "content-type": "application/json",
		"user-agent": e.Data.UserAgent, "accept": "application/json", "x-stainless-lang": "python",
		"x-stainless-os": "Linux", "x-stainless-retry-count": "0", "x-stainless-runtime": "CPython"}
	e.Data.ResponseHeaders = map[string]string{"content-type": "application/json", "server": "Caddy",
		"x-modelgate-provider": "openai-1", "x-ratelimit-limit-requests": "100000000",
		"x-ratelimit-remaining-requests": "99953478", "x-ratelimit-reset-requests": "72"}
	e.Data.WorkflowFeatures = audit.WorkflowFeatures{Audit: true, Budget: true, Usage: true}
	failed := *e
	d := *e.Data
	failed.Data = &d
	d.ErrorCode, d.ErrorMessage = "upstream_error", "the provider answered 500: internal error while generating the answer"
	d.Attempts = append([]audit.Attempt{{Seq: 1, Kind: audit.AttemptPrimary, ProviderName: "openai-0", Model: "gpt-4o-mini",
		StatusCode: 500, ErrorType: "provider_error", ErrorMessage: d.ErrorMessage, ResponseBody: []byte(`{"error":{"message":"internal"}}`)}},
		d.Attempts...)
	for _, e := range []*audit.Entry{e, &failed} {
		var buf [512]byte
		hint := headSizeHint(e, appendSearch(buf[:0], e))
		head, err := encodeHead(e)
		if err != nil {
			t.Fatal(err)
		}
		if cap(head) != hint {
			t.Errorf("head of %d bytes grew its buffer of %d to %d", len(head), hint, cap(head))
		}
	}
}

// TestHeadTailFields: the fields after entryFields round-trip, and a head
// written before they existed (ending with entryFields) reads them as
// zero.
func TestHeadTailFields(t *testing.T) {
	e, _ := benchEntry(time.Now(), 1, jsonBody(64))
	e.SecretsRedacted = 7
	in := 0.25
	for _, c := range []*audit.EntryCost{
		{Input: &in, Output: &in, Total: 0.5, Currency: "USD", Source: catalog.CostSourceCatalog},
		{Total: 0.95, Currency: "USD", Source: catalog.CostSourceProvider},
	} {
		e.Cost = c
		head, err := encodeHead(e)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decodeBinaryHead(e.ID[:], head)
		if err != nil || got.SecretsRedacted != 7 || !reflect.DeepEqual(got.Cost, c) {
			t.Fatalf("read back %+v, cost %+v (%v)", got, got.Cost, err)
		}
	}
	e.Cost = nil
	head, err := encodeHead(e)
	if err != nil {
		t.Fatal(err)
	}
	// A head written before the cost: it ends with the secrets count.
	beforeCost := head[:len(head)-1] // no cost: one byte
	got, err := decodeBinaryHead(e.ID[:], beforeCost)
	if err != nil || got.SecretsRedacted != 7 || got.Cost != nil {
		t.Fatalf("head without a cost read back %+v (%v)", got, err)
	}
	old := beforeCost[:len(beforeCost)-1] // the varint of 7: one byte
	got, err = decodeBinaryHead(e.ID[:], old)
	if err != nil || got.SecretsRedacted != 0 || got.Cost != nil || got.Data == nil || got.Data.UserAgent != e.Data.UserAgent {
		t.Fatalf("old head read back %+v (%v)", got, err)
	}
}

// TestUsageCostSource: a usage record's cost source round-trips, and a
// record written before it (ending with the total cost) reads as priced
// by the catalog.
func TestUsageCostSource(t *testing.T) {
	r := usageAt(time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC), "/a", "s", "m", 0.95)
	r.CostSource = catalog.CostSourceProvider
	r.AuthKeyID, r.StatusCode, r.DurationNs, r.CostAvoided = "key_1", 502, 1234567, new(float64)
	b, err := appendUsage(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeUsage(r.ID[:], b)
	if err != nil || !reflect.DeepEqual(got, r) {
		t.Fatalf("read back %+v (%v)", got, err)
	}
	r.CostSource, r.AuthKeyID, r.StatusCode, r.DurationNs, r.CostAvoided = "", "", 0, 0, nil
	if b, err = appendUsage(nil, r); err != nil {
		t.Fatal(err)
	}
	// A record from before the key id, status and duration (empty, zero
	// and null: four bytes), and from before the cost source (empty: one).
	if got, err = decodeUsage(r.ID[:], b[:len(b)-4]); err != nil || got.CostSource != catalog.CostSourceCatalog || got.Model != r.Model {
		t.Fatalf("record without status read back %+v (%v)", got, err)
	}
	old := b[:len(b)-5]
	if got, err = decodeUsage(r.ID[:], old); err != nil || got.CostSource != catalog.CostSourceCatalog || *got.TotalCost != 0.95 {
		t.Fatalf("old record read back %+v (%v)", got, err)
	}
	r.TotalCost = nil
	if b, err = appendUsage(nil, r); err != nil {
		t.Fatal(err)
	}
	if got, err = decodeUsage(r.ID[:], b[:len(b)-5]); err != nil || got.CostSource != "" {
		t.Fatalf("old unpriced record read back %+v (%v)", got, err)
	}
}
