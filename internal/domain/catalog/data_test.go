package catalog

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
)

var (
	knownCapabilities = []string{"tools", "vision", "reasoning", "streaming", "json_mode",
		"structured_output", "audio_input", "audio_output", "prompt_caching", "pdf_input",
		"video_input", "image_output", "realtime"}
	knownModes = []string{"chat", "responses", "completion", "embedding", "transcription",
		"translation", "speech", "image_generation", "video_generation", "moderation", "realtime"}
)

// eachEntry calls fn for every canonical model of every provider.
func eachEntry(t *testing.T, fn func(t *testing.T, provider string, e *entry)) {
	t.Helper()
	idx := catalogIndex()
	for _, c := range idx.ordered {
		for _, id := range c.ids {
			t.Run(c.name+"/"+id, func(t *testing.T) { fn(t, c.name, c.models[id]) })
		}
	}
}

func TestEmbeddedDataParses(t *testing.T) {
	idx, err := parse(dataFS)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"anthropic", "deepseek", "elevenlabs", "gemini", "groq", "mistral", "openai", "xai"}
	if got := Providers(); !slices.Equal(got, want) {
		t.Errorf("Providers() = %v, want %v", got, want)
	}
	if len(idx.ordered) != len(want) {
		t.Errorf("search order covers %d providers, want %d", len(idx.ordered), len(want))
	}
	for _, p := range want {
		if len(IDs(p)) == 0 {
			t.Errorf("provider %s has no models", p)
		}
		t.Logf("%-10s %2d models", p, len(IDs(p)))
	}
	if !slices.Equal(IDs("azure"), IDs("openai")) || IDs("openrouter") != nil {
		t.Error("IDs: azure must share openai's catalog, openrouter has none")
	}
}

func TestEmbeddedEntriesAreSane(t *testing.T) {
	names := map[string]string{}
	eachEntry(t, func(t *testing.T, provider string, e *entry) {
		m := e.meta
		if m.DisplayName == "" || m.Family == "" {
			t.Errorf("display_name %q, family %q: both required", m.DisplayName, m.Family)
		}
		key := provider + "/" + m.DisplayName
		if other, dup := names[key]; dup {
			t.Errorf("display name %q also used by %s", m.DisplayName, other)
		}
		names[key] = e.id
		if len(m.Categories) == 0 {
			t.Error("no categories")
		}
		for _, c := range m.Categories {
			if !ValidCategory(c) || c == CategoryAll {
				t.Errorf("category %q not allowed on a model", c)
			}
		}
		if len(m.Modes) == 0 {
			t.Error("no modes")
		}
		for _, md := range m.Modes {
			if !slices.Contains(knownModes, md) {
				t.Errorf("unknown mode %q", md)
			}
		}
		for c, v := range m.Capabilities {
			if !slices.Contains(knownCapabilities, c) || !v {
				t.Errorf("capability %q: %v (unknown or false)", c, v)
			}
		}
		text := slices.Contains(m.Categories, CategoryTextGeneration)
		if text && m.ContextWindow <= 0 {
			t.Error("text model without context_window")
		}
		if m.ContextWindow < 0 || m.MaxOutputTokens < 0 ||
			(m.ContextWindow > 0 && m.MaxOutputTokens > m.ContextWindow) {
			t.Errorf("context_window %d, max_output_tokens %d", m.ContextWindow, m.MaxOutputTokens)
		}
		if len(m.PricingSources) == 0 || m.PricingSources["pricing"] == "" {
			t.Error("pricing_sources.pricing missing")
		}
		if m.Rankings != nil {
			t.Error("rankings must come from a dated source; none is embedded")
		}
		checkPricing(t, m.Pricing, text, slices.Contains(m.Categories, CategoryEmbedding))
	})
}

func checkPricing(t *testing.T, p *Pricing, text, embedding bool) {
	t.Helper()
	if p == nil {
		t.Fatal("no pricing")
	}
	if p.Currency != "USD" {
		t.Errorf("currency %q, want USD", p.Currency)
	}
	set := 0
	v := reflect.ValueOf(*p)
	for i := 0; i < v.NumField(); i++ {
		if fp, ok := v.Field(i).Interface().(*float64); ok && fp != nil {
			set++
			if *fp < 0 || math.IsNaN(*fp) || math.IsInf(*fp, 0) {
				t.Errorf("%s = %v", v.Type().Field(i).Name, *fp)
			}
		}
	}
	if set == 0 {
		t.Error("pricing has no price")
	}
	if (text || embedding) && p.InputPerMTok == nil {
		t.Error("token model without input_per_mtok")
	}
	if text && p.OutputPerMTok == nil {
		t.Error("text model without output_per_mtok")
	}
	below := func(name string, x, base *float64) {
		if x != nil && (base == nil || *x > *base) {
			t.Errorf("%s %v exceeds its base price", name, *x)
		}
	}
	below("cached_input_per_mtok", p.CachedInputPerMTok, p.InputPerMTok)
	below("batch_input_per_mtok", p.BatchInputPerMTok, p.InputPerMTok)
	below("batch_output_per_mtok", p.BatchOutputPerMTok, p.OutputPerMTok)
	checkTiers(t, p)
}

func checkTiers(t *testing.T, p *Pricing) {
	t.Helper()
	last := 0.0
	for i, tr := range p.Tiers {
		if tr.InputPerMTok == nil || tr.OutputPerMTok == nil {
			t.Errorf("tier %d lacks input or output price", i)
		}
		if tr.UpToTokens != nil && *tr.UpToTokens < 1 {
			t.Errorf("tier %d: up_to_tokens %d < 1", i, *tr.UpToTokens)
		}
		if tr.UpToMTok != nil && *tr.UpToMTok <= 0 {
			t.Errorf("tier %d: up_to_mtok %v <= 0", i, *tr.UpToMTok)
		}
		b, bounded := tr.bound()
		switch {
		case !bounded && i != len(p.Tiers)-1:
			t.Errorf("unbounded tier %d is not last", i)
		case bounded && b <= last:
			t.Errorf("tier %d bound %v not above %v", i, b, last)
		}
		last = b
	}
	if len(p.Tiers) > 0 && (*p.Tiers[0].InputPerMTok != *p.InputPerMTok || *p.Tiers[0].OutputPerMTok != *p.OutputPerMTok) {
		t.Error("first tier must repeat the base prices")
	}
}

func TestEveryIDAndAliasResolvesToItself(t *testing.T) {
	idx := catalogIndex()
	for _, c := range idx.ordered {
		for key, e := range c.models {
			got, _ := idx.lookup(c.name, key)
			if got != e {
				t.Errorf("%s: %q resolves to %v, want %s", c.name, key, got, e.id)
			}
		}
	}
}

// TestFixtureModelsCovered checks that the prominent models of the
// providers' recorded /models responses are catalogued; each id checked
// must be one the recording lists.
func TestFixtureModelsCovered(t *testing.T) {
	ids := map[string][]string{
		"openai": {"gpt-4o", "gpt-4o-2024-11-20", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini-2025-04-14",
			"gpt-5", "gpt-5-2025-08-07", "gpt-5-mini", "gpt-5-nano", "gpt-5-pro", "gpt-5-codex",
			"gpt-5.1", "gpt-5.1-codex-max", "gpt-5.2", "gpt-5.2-pro-2025-12-11", "gpt-5.2-codex",
			"o1", "o3", "o3-pro", "o4-mini", "o4-mini-deep-research-2025-06-26", "gpt-4-turbo",
			"gpt-3.5-turbo", "text-embedding-3-small", "text-embedding-3-large", "whisper-1",
			"gpt-4o-transcribe", "tts-1", "gpt-4o-mini-tts", "gpt-image-1", "dall-e-3", "gpt-realtime-mini"},
		"gemini": {"models/gemini-2.5-pro", "models/gemini-2.5-flash", "models/gemini-2.5-flash-lite",
			"models/gemini-2.0-flash", "models/gemini-3-flash-preview", "models/gemini-2.5-flash-image",
			"models/imagen-4.0-generate-001", "models/veo-3.0-generate-001"},
		"groq": {"llama-3.1-8b-instant", "meta-llama/llama-4-maverick-17b-128e-instruct",
			"openai/gpt-oss-20b", "qwen/qwen3-32b", "whisper-large-v3", "meta-llama/llama-guard-4-12b"},
	}
	for typ, list := range ids {
		listed := recordedModelIDs(t, typ)
		for _, id := range list {
			if !listed[id] {
				t.Errorf("%s: %s is not in the recorded models.json", typ, id)
			}
			if _, ok := Lookup(typ, id); !ok {
				t.Errorf("%s: %s not catalogued", typ, id)
			}
		}
	}
}

// recordedModelIDs returns the ids of the recorded GET /models answer of
// provider family typ.
func recordedModelIDs(t *testing.T, typ string) map[string]bool {
	t.Helper()
	var listing struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(fixtures.Must(t, typ, "models.json"), &listing); err != nil {
		t.Fatalf("%s/models.json: %v", typ, err)
	}
	if len(listing.Data) == 0 {
		t.Fatalf("%s/models.json lists no model", typ)
	}
	ids := make(map[string]bool, len(listing.Data))
	for _, m := range listing.Data {
		ids[m.ID] = true
	}
	return ids
}

func TestParseRejectsBadData(t *testing.T) {
	tests := []struct{ name, file, body string }{
		{"malformed", "data/x.json", `{"provider": "x", "models": [`},
		{"unknown field", "data/x.json", `{"provider": "x", "models": [{"id": "a", "display_nam": "A"}]}`},
		{"provider mismatch", "data/x.json", `{"provider": "y", "models": []}`},
		{"missing id", "data/x.json", `{"provider": "x", "models": [{"display_name": "A"}]}`},
		{"duplicate id", "data/x.json", `{"provider": "x", "models": [{"id": "a"}, {"id": "a"}]}`},
		{"alias shadows id", "data/x.json", `{"provider": "x", "models": [{"id": "a"}, {"id": "b", "aliases": ["a"]}]}`},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{tt.file: {Data: []byte(tt.body)}}
		if _, err := parse(fsys); err == nil {
			t.Errorf("%s: parse accepted it", tt.name)
		} else if !strings.Contains(err.Error(), tt.file) {
			t.Errorf("%s: error %q does not name the file", tt.name, err)
		}
	}
	dupPrefix := fstest.MapFS{
		"data/a.json": {Data: []byte(`{"provider": "a", "vendor_prefixes": ["v"], "models": []}`)},
		"data/b.json": {Data: []byte(`{"provider": "b", "vendor_prefixes": ["v"], "models": []}`)},
	}
	if _, err := parse(dupPrefix); err == nil {
		t.Error("parse accepted a vendor prefix claimed twice")
	}
	ok := fstest.MapFS{"data/x.json": {Data: []byte(
		`{"provider": "x", "pricing_sources": {"pricing": "p"}, "models": [{"id": "a", "aliases": ["b"], "display_name": "A"}]}`)}}
	idx, err := parse(ok)
	if err != nil {
		t.Fatal(err)
	}
	if e := idx.byType["x"].models["b"]; e == nil || e.meta.DisplayName != "A" || e.meta.PricingSources["pricing"] != "p" {
		t.Errorf("alias or default pricing_sources not applied: %+v", e)
	}
}
