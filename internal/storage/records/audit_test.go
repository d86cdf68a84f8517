package records

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Golden bytes of today's stored forms, taken from the engines before
// the codec moved here.
const (
	// goldenSearch is sampleEntry's search text as bbolt stores it;
	// PostgreSQL stores it with NUL and invalid UTF-8 replaced.
	goldenSearch = "01081g81860w40j2gb1g6gw3rg\nreq-1\ns1\x00x\npost\n/v1/chat\n/team/ä\nfast\ngpt-4o\nopenai-main\nopenai\nupstream\nk1\np1\n10.0.0.1\ne1\nbad gateway\nagent/1.0 \uFFFD\n"
	// goldenBodyList is sampleEntry's bodies list: what follows the
	// version byte of PostgreSQL's bodies record (version 1) and of
	// bbolt's version 2 record, and the request body of bbolt's version
	// 1 record.
	goldenBodyList = "\f{\"id\":\"c-1\"}\x02\x10{\"error\":\"boom\"}\x00\x02\r{\"model\":\"x\"}\x00"
	// goldenRequestBody is sampleEntry's request body, length-prefixed.
	goldenRequestBody = "\x10{\"model\":\"fast\"}"
	// goldenUsage is sampleUsage's JSON form, as PostgreSQL stores it.
	goldenUsage = `{"id":"0G1W70T30B184GG1R60M2060G1","request_id":"","timestamp":"2024-05-06T07:08:09Z","user_path":"/team","session_id":"s","provider_name":"openai-main","provider_type":"openai","model":"gpt-4o","endpoint":"/v1/chat/completions","auth_key_id":"","status_code":0,"duration_ns":0,"cache_type":"","input_tokens":100,"output_tokens":10,"total_tokens":110,"cached_input_tokens":20,"cache_write_input_tokens":0,"reasoning_tokens":0,"input_cost":null,"output_cost":null,"total_cost":0.5,"cost_source":"provider"}`
)

func TestSearchTextGolden(t *testing.T) {
	if got := string(AppendSearchText(nil, sampleEntry())); got != goldenSearch {
		t.Fatalf("search text changed:\n got %q\nwant %q", got, goldenSearch)
	}
	// Appending keeps what b holds.
	if got := string(AppendSearchText([]byte("x"), sampleEntry())); got != "x"+goldenSearch {
		t.Fatalf("appended to x: %q", got)
	}
}

// TestAppendLowerMatchesToLower: the search text is strings.ToLower of
// each field, ASCII or not.
func TestAppendLowerMatchesToLower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC/Def-1", "Grüße ÀÉ", "İstanbul", "\xff\xfeX", "ß"} {
		got := string(AppendLower([]byte("x"), s))
		want := "x"
		if s != "" {
			want += strings.ToLower(s) + "\n"
		}
		if got != want {
			t.Errorf("AppendLower(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestBodiesGolden(t *testing.T) {
	e := sampleEntry()
	d := e.Data
	if got := string(AppendBodyList(nil, d.ResponseBody, d.Attempts, d.RequestRevisions)); got != goldenBodyList {
		t.Fatalf("bodies list changed:\n got %q\nwant %q", got, goldenBodyList)
	}
	if got := string(AppendBody(nil, d.RequestBody)); got != goldenRequestBody {
		t.Fatalf("request body changed: %q", got)
	}
	// The room reserved: bbolt's version 1 record (with the request
	// body) and PostgreSQL's record (without).
	if n := BodiesSize(d, true); n != 98 {
		t.Fatalf("BodiesSize with the request: %d", n)
	}
	if n := BodiesSize(d, false); n < 1+len(goldenBodyList) {
		t.Fatalf("BodiesSize without the request: %d", n)
	}
	none := &audit.Data{RequestBody: d.RequestBody, Attempts: []audit.Attempt{{Seq: 1}}}
	if BodiesSize(none, false) != 0 || BodiesSize(nil, true) != 0 || BodiesSize(none, true) == 0 {
		t.Fatal("BodiesSize of an entry without bodies")
	}
}

func TestBodyListRoundTrip(t *testing.T) {
	want := sampleEntry().Data
	head := sampleEntry().Data.WithoutBodies()
	b := AppendBodyList(nil, want.ResponseBody, want.Attempts, want.RequestRevisions)
	if !ReadBodyList(head, b) {
		t.Fatal("not read")
	}
	head.RequestBody = want.RequestBody
	if !reflect.DeepEqual(head, want) {
		t.Fatalf("read back %+v\nwant %+v", head, want)
	}
	// Bodies are copies, and a body that is not JSON reads as a string.
	clear(b)
	if string(head.ResponseBody) != `{"id":"c-1"}` {
		t.Fatalf("response body aliases the record: %s", head.ResponseBody)
	}
	if m, rest, ok := ReadBody(AppendBody(nil, json.RawMessage("not json"))); !ok || len(rest) != 0 || string(m) != `"not json"` {
		t.Fatalf("non-JSON body read as %s %v", m, ok)
	}
	// A stored body without its attempt is skipped; a cut record fails.
	short := &audit.Data{}
	if !ReadBodyList(short, []byte(goldenBodyList)) || short.Attempts != nil || string(short.ResponseBody) != `{"id":"c-1"}` {
		t.Fatalf("read into an entry without attempts: %+v", short)
	}
	for i := range len(goldenBodyList) {
		if ReadBodyList(&audit.Data{}, []byte(goldenBodyList[:i])) {
			t.Fatalf("a record cut at %d reads", i)
		}
	}
}

func TestUsageJSON(t *testing.T) {
	b, err := EncodeUsageJSON(sampleUsage())
	golden(t, b, err, goldenUsage)
	r, err := DecodeUsageJSON(b)
	if err != nil || !reflect.DeepEqual(r, sampleUsage()) {
		t.Fatalf("read back %+v, %v", r, err)
	}
	if _, err := DecodeUsageJSON([]byte(`{`)); err == nil || !strings.HasPrefix(err.Error(), "decode usage record: ") {
		t.Fatal(err)
	}
	// A record stored before costs had a source: priced, its price is
	// the catalog's; unpriced, it has none.
	for _, c := range []struct {
		stored string
		want   catalog.CostSource
	}{
		{`{"total_cost":0.5}`, catalog.CostSourceCatalog},
		{`{"total_cost":0.5,"cost_source":null}`, catalog.CostSourceCatalog},
		{`{"total_cost":null}`, ""},
		{`{"total_cost":0.5,"cost_source":"provider"}`, catalog.CostSourceProvider},
	} {
		r, err := DecodeUsageJSON([]byte(c.stored))
		if err != nil || r.CostSource != c.want {
			t.Errorf("%s: source %q (%v), want %q", c.stored, r.CostSource, err, c.want)
		}
	}
}

// sampleEntry is an entry with every searched field, upper case,
// non-ASCII, a NUL and invalid UTF-8, and bodies of every kind.
func sampleEntry() *audit.Entry {
	t := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	var id audit.ID
	for i := range id {
		id[i] = byte(i + 1)
	}
	return &audit.Entry{
		ID: id, RequestID: "Req-1", Timestamp: t,
		Method: "POST", Path: "/v1/Chat", StatusCode: 502, DurationNs: 100,
		AuthMethod: "api_key", UserPath: "/Team/ä", SessionID: "S1\x00x",
		Provider: "openai", ProviderName: "OpenAI-Main", RequestedModel: "Fast", ResolvedModel: "gpt-4o",
		ErrorType: "upstream", AuthKeyID: "k1", PrincipalID: "p1", ClientIP: "10.0.0.1",
		Usage: audit.UsageOf(catalog.Usage{InputTokens: 10, OutputTokens: 5, TotalTokens: 15}),
		Data: &audit.Data{
			RequestBody:    json.RawMessage(`{"model":"fast"}`),
			ResponseBody:   json.RawMessage(`{"id":"c-1"}`),
			RequestHeaders: map[string]string{"content-type": "application/json"},
			UserAgent:      "Agent/1.0 \xff",
			ErrorCode:      "E1",
			ErrorMessage:   "Bad Gateway",
			Attempts: []audit.Attempt{
				{Seq: 1, Kind: audit.AttemptPrimary, ProviderName: "openai-main", StatusCode: 500,
					ResponseBody: json.RawMessage(`{"error":"boom"}`), StartedAt: t},
				{Seq: 2, Kind: audit.AttemptFailover, ProviderName: "openai-main", StatusCode: 502, StartedAt: t},
			},
			RequestRevisions: []audit.Revision{{Body: json.RawMessage(`{"model":"x"}`), BytesAfter: 13, BytesBefore: 16}, {BytesAfter: 1}},
		},
	}
}

// sampleUsage is a priced usage record.
func sampleUsage() *audit.UsageRecord {
	var id audit.ID
	for i := range id {
		id[i] = byte(16 - i)
	}
	return &audit.UsageRecord{
		ID: id, Timestamp: time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC), UserPath: "/team", SessionID: "s",
		ProviderName: "openai-main", ProviderType: "openai", Model: "gpt-4o", Endpoint: "/v1/chat/completions",
		Usage:     catalog.Usage{InputTokens: 100, OutputTokens: 10, TotalTokens: 110, CachedInputTokens: 20},
		TotalCost: ptr(0.5), CostSource: catalog.CostSourceProvider,
	}
}
