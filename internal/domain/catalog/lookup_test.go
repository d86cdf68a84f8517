package catalog

import (
	"testing"
)

func TestLookupResolves(t *testing.T) {
	tests := []struct{ typ, id, want string }{
		// exact and dated snapshots
		{"openai", "gpt-4o", "gpt-4o"},
		{"openai", "gpt-4o-mini-2024-07-18", "gpt-4o-mini"},
		{"openai", "gpt-4o-2024-08-06", "gpt-4o"},
		{"openai", "gpt-4o-2024-05-13", "gpt-4o-2024-05-13"},
		{"openai", "gpt-4.1-nano-2025-04-14", "gpt-4.1-nano"},
		{"openai", "gpt-5-mini-2025-08-07", "gpt-5-mini"},
		{"openai", "o3-mini-2025-01-31", "o3-mini"},
		{"openai", "o1-pro-2025-03-19", "o1-pro"},
		{"openai", "gpt-4-0613", "gpt-4"},
		{"openai", "gpt-4-1106-preview", "gpt-4-turbo"},
		{"openai", "gpt-4-turbo-preview", "gpt-4-turbo"},
		{"openai", "gpt-4-turbo-2024-04-09", "gpt-4-turbo"},
		{"openai", "gpt-3.5-turbo-0125", "gpt-3.5-turbo"},
		{"openai", "text-embedding-ada-002", "text-embedding-ada-002"},
		{"openai", "gpt-4o-mini-tts-2025-12-15", "gpt-4o-mini-tts"},
		{"openai", "gpt-4o-mini-transcribe-2025-03-20", "gpt-4o-mini-transcribe"},
		{"openai", "tts-1-hd-1106", "tts-1-hd"},
		{"openai", "omni-moderation-2024-09-26", "omni-moderation-latest"},
		{"openai", "gpt-realtime-2025-08-28", "gpt-realtime"},
		{"openai", "openai/gpt-4o", "gpt-4o"},
		{"OpenAI", "gpt-4o", "gpt-4o"},
		{"azure", "gpt-4.1-mini", "gpt-4.1-mini"},
		// anthropic
		{"anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"anthropic", "claude-sonnet-4-0", "claude-sonnet-4"},
		{"anthropic", "claude-opus-4-20250514", "claude-opus-4"},
		{"anthropic", "claude-opus-4-1-20250805", "claude-opus-4-1"},
		{"anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"},
		{"anthropic", "claude-haiku-4-5-20251001", "claude-haiku-4-5"},
		{"anthropic", "claude-3-5-haiku-latest", "claude-3-5-haiku"},
		{"anthropic", "claude-3-7-sonnet-20250219", "claude-3-7-sonnet"},
		{"anthropic", "claude-sonnet-4@20250514", "claude-sonnet-4"},
		// gemini
		{"gemini", "models/gemini-2.5-flash", "gemini-2.5-flash"},
		{"gemini", "gemini-2.0-flash-001", "gemini-2.0-flash"},
		{"gemini", "models/gemini-2.0-flash-lite-001", "gemini-2.0-flash-lite"},
		{"gemini", "gemini-2.0-flash-lite-preview-02-05", "gemini-2.0-flash-lite"},
		{"gemini", "gemini-2.5-flash-preview-09-2025", "gemini-2.5-flash"},
		{"gemini", "gemini-2.5-flash-lite-preview-09-2025", "gemini-2.5-flash-lite"},
		{"gemini", "models/gemini-2.5-flash-preview-tts", "gemini-2.5-flash-preview-tts"},
		{"gemini", "models/gemini-embedding-001", "gemini-embedding-001"},
		{"gemini", "models/text-embedding-004", "text-embedding-004"},
		{"gemini", "models/gemini-3-pro-preview", "gemini-3-pro-preview"},
		// openrouter and other proxies resolve through the vendor prefix
		{"openrouter", "anthropic/claude-sonnet-4", "claude-sonnet-4"},
		{"openrouter", "anthropic/claude-3.7-sonnet", "claude-3-7-sonnet"},
		{"openrouter", "anthropic/claude-sonnet-4.5", "claude-sonnet-4-5"},
		{"openrouter", "anthropic/claude-opus-4.1", "claude-opus-4-1"},
		{"openrouter", "google/gemini-2.5-pro", "gemini-2.5-pro"},
		{"openrouter", "x-ai/grok-4", "grok-4"},
		{"openrouter", "deepseek/deepseek-chat", "deepseek-chat"},
		{"openrouter", "mistralai/mistral-large", "mistral-large-2512"},
		{"openrouter", "openai/gpt-4o-mini", "gpt-4o-mini"},
		{"openrouter", "openai/gpt-oss-120b", "openai/gpt-oss-120b"},
		{"openrouter", "meta-llama/llama-4-scout-17b-16e-instruct", "meta-llama/llama-4-scout-17b-16e-instruct"},
		{"openai", "anthropic/claude-haiku-4-5", "claude-haiku-4-5"},
		{"mock", "gpt-4o", "gpt-4o"},
		{"", "claude-3-haiku-20240307", "claude-3-haiku"},
		// groq
		{"groq", "openai/gpt-oss-120b", "openai/gpt-oss-120b"},
		{"groq", "llama-3.3-70b-versatile", "llama-3.3-70b-versatile"},
		{"groq", "moonshotai/kimi-k2-instruct-0905", "moonshotai/kimi-k2-instruct-0905"},
		{"groq", "whisper-large-v3-turbo", "whisper-large-v3-turbo"},
		// xai, deepseek, mistral, elevenlabs
		{"xai", "grok-4-0709", "grok-4"},
		{"xai", "grok-4-latest", "grok-4"},
		{"xai", "grok-3-beta", "grok-3"},
		{"xai", "grok-4-fast", "grok-4-fast-reasoning"},
		{"deepseek", "deepseek-reasoner", "deepseek-reasoner"},
		{"mistral", "mistral-large-latest", "mistral-large-2512"},
		{"mistral", "mistral-large-2411", "mistral-large-2411"},
		{"mistral", "mistral-large-2407", "mistral-large-2411"},
		{"mistral", "mistral-small-latest", "mistral-small-2506"},
		{"mistral", "codestral-latest", "codestral-2508"},
		{"mistral", "mistral-embed-2312", "mistral-embed"},
		{"elevenlabs", "scribe_v1", "scribe_v1"},
		{"elevenlabs", "eleven_multilingual_v2", "eleven_multilingual_v2"},
	}
	idx := catalogIndex()
	for _, tt := range tests {
		e, _ := idx.lookup(tt.typ, tt.id)
		if e == nil {
			t.Errorf("lookup(%q, %q) = none, want %s", tt.typ, tt.id, tt.want)
			continue
		}
		if e.id != tt.want {
			t.Errorf("lookup(%q, %q) = %s, want %s", tt.typ, tt.id, e.id, tt.want)
		}
		m, ok := Lookup(tt.typ, tt.id)
		if !ok || m.DisplayName != e.meta.DisplayName {
			t.Errorf("Lookup(%q, %q) = %q, %v; want %q", tt.typ, tt.id, m.DisplayName, ok, e.meta.DisplayName)
		}
	}
}

func TestLookupMisses(t *testing.T) {
	tests := []struct{ typ, id string }{
		{"openai", ""},
		{"openai", "gpt-4o-audio-preview"},       // not gpt-4o: different prices
		{"openai", "gpt-4o-mini-search-preview"}, // not gpt-4o-mini
		{"openai", "gpt-4o-realtime-preview-2024-12-17"},
		{"openai", "davinci-002"},
		{"openai", "claude-sonnet-4"},     // another vendor's model, no prefix
		{"gemini", "gemini-flash-latest"}, // moving alias, target unknown
		{"gemini", "gemini-2.5-computer-use-preview-10-2025"},
		{"groq", "groq/compound"},
		{"ollama", "llama3.3:70b"},
		{"openrouter", "some-vendor/some-model"},
		{"mock", "not-a-mock-model"},
	}
	for _, tt := range tests {
		if m, ok := Lookup(tt.typ, tt.id); ok {
			t.Errorf("Lookup(%q, %q) = %q, want no metadata", tt.typ, tt.id, m.DisplayName)
		}
	}
}

func TestLookupSelfHostedHasNoPricing(t *testing.T) {
	for _, typ := range []string{"ollama", "vllm"} {
		m, ok := Lookup(typ, "openai/gpt-oss-20b")
		if !ok {
			t.Fatalf("Lookup(%s, openai/gpt-oss-20b) missed", typ)
		}
		if m.Pricing != nil {
			t.Errorf("%s: Pricing = %+v, want nil", typ, m.Pricing)
		}
		if m.ContextWindow == 0 {
			t.Errorf("%s: metadata lost its context window", typ)
		}
	}
	if m, _ := Lookup("groq", "openai/gpt-oss-20b"); m.Pricing == nil {
		t.Error("groq lost its pricing")
	}
}

func TestStripVersion(t *testing.T) {
	tests := []struct{ in, out string }{
		{"gpt-4o-2024-08-06", "gpt-4o"},
		{"claude-sonnet-4-20250514", "claude-sonnet-4"},
		{"gpt-4-0613", "gpt-4"},
		{"gemini-2.0-flash-001", "gemini-2.0-flash"},
		{"x-latest", "x"},
		{"x-beta", "x"},
		{"x-preview", "x"},
		{"x-preview-09-2025", "x"},
		{"x-preview-06-17", "x"},
		{"x-preview-tts", ""},
		{"claude-opus-4-1", ""},
		{"x-12", ""},
		{"x-123456789", ""},
		{"llama-3.3-70b", ""},
		{"plain", ""},
		{"-2024", ""},
	}
	for _, tt := range tests {
		got, ok := stripVersion(tt.in)
		if tt.out == "" {
			if ok {
				t.Errorf("stripVersion(%q) = %q, want no change", tt.in, got)
			}
			continue
		}
		if !ok || got != tt.out {
			t.Errorf("stripVersion(%q) = %q, %v; want %q", tt.in, got, ok, tt.out)
		}
	}
}

func TestCategories(t *testing.T) {
	for _, c := range []string{"all", "text_generation", "embedding", "image", "audio", "video", "utility"} {
		if !ValidCategory(c) {
			t.Errorf("ValidCategory(%q) = false", c)
		}
	}
	for _, c := range []string{"", "chat", "Text_Generation", "embeddings"} {
		if ValidCategory(c) {
			t.Errorf("ValidCategory(%q) = true", c)
		}
	}
	m := Metadata{Categories: []string{CategoryTextGeneration, CategoryAudio}}
	tests := []struct {
		category string
		want     bool
	}{
		{"", true}, {"all", true}, {"text_generation", true}, {"audio", true},
		{"embedding", false}, {"bogus", false},
	}
	for _, tt := range tests {
		if got := MatchesCategory(m, tt.category); got != tt.want {
			t.Errorf("MatchesCategory(%q) = %v, want %v", tt.category, got, tt.want)
		}
	}
	if !MatchesCategory(Metadata{}, "all") || MatchesCategory(Metadata{}, "embedding") {
		t.Error("metadata-less model: wrong category match")
	}
	emb, _ := Lookup("openai", "text-embedding-3-small")
	if !MatchesCategory(emb, CategoryEmbedding) || MatchesCategory(emb, CategoryTextGeneration) {
		t.Errorf("text-embedding-3-small categories = %v", emb.Categories)
	}
}

func TestLookupExactDoesNotAllocate(t *testing.T) {
	Lookup("openai", "gpt-4o")
	if n := testing.AllocsPerRun(100, func() { Lookup("openai", "gpt-4o") }); n != 0 {
		t.Errorf("exact Lookup allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { Lookup("ollama", "openai/gpt-oss-20b") }); n != 0 {
		t.Errorf("self-hosted Lookup allocates %v times", n)
	}
}

// TestMockModelsHaveCategories: the built-in mock provider's models have
// metadata (so the inventory's category filter finds them) and no price.
func TestMockModelsHaveCategories(t *testing.T) {
	for id, cat := range map[string]string{"mock-chat": "text_generation", "mock-reasoner": "text_generation",
		"mock-embedding": "embedding", "mock-tts": "audio", "mock-transcribe": "audio"} {
		m, ok := Lookup("mock", id)
		if !ok || len(m.Categories) != 1 || m.Categories[0] != cat || m.Pricing != nil {
			t.Errorf("Lookup(mock, %s) = %+v %v", id, m, ok)
		}
	}
}

func TestRequestCostOverride(t *testing.T) {
	tok := int64(200_000)
	o := NewOverrides(map[OverrideKey]Pricing{
		{"openai", "gpt-4o-mini"}: {InputPerMTok: f(1), OutputPerMTok: f(2)},
		{"acct-b", "gpt-4o-mini"}: {InputPerMTok: f(10), OutputPerMTok: f(20)},
		{"gemini", "gemini-2.5-pro"}: {InputPerMTok: f(1), OutputPerMTok: f(10), Tiers: []Tier{
			{UpToTokens: &tok, InputPerMTok: f(1), OutputPerMTok: f(10)},
			{InputPerMTok: f(3), OutputPerMTok: f(30)},
		}},
	})
	prev := SetOverrides(o)
	t.Cleanup(func() { SetOverrides(prev) })

	c := Consumption{Usage: Usage{InputTokens: 1_000_000, OutputTokens: 500_000}}
	// By type: 1 + 1 = 2 USD.
	b, ok := RequestCostOn("acct-a", "openai", "gpt-4o-mini", c, ReportedCost{})
	if !ok || b.Source != CostSourceOverride || NanosOf(b.Total) != 2_000_000_000 {
		t.Fatalf("by type: %+v %v", b, ok)
	}
	// The provider name wins over the type: 10 + 10 = 20 USD.
	b, ok = RequestCostOn("acct-b", "openai", "gpt-4o-mini", c, ReportedCost{})
	if !ok || b.Source != CostSourceOverride || NanosOf(b.Total) != 20_000_000_000 {
		t.Fatalf("by name: %+v %v", b, ok)
	}
	// Tiers: a prompt above 200k tokens is billed at 3 and 30.
	big := Consumption{Usage: Usage{InputTokens: 300_000, OutputTokens: 100_000}}
	b, ok = RequestCostOn("", "gemini", "gemini-2.5-pro", big, ReportedCost{})
	if !ok || b.Source != CostSourceOverride || NanosOf(b.Total) != NanosOf(0.9+3) {
		t.Fatalf("tier: %+v %v", b, ok)
	}
	small := Consumption{Usage: Usage{InputTokens: 100_000, OutputTokens: 100_000}}
	if b, _ = RequestCostOn("", "gemini", "gemini-2.5-pro", small, ReportedCost{}); NanosOf(b.Total) != NanosOf(0.1+1) {
		t.Fatalf("low tier: %+v", b)
	}
	// A reported price stays the provider's, split by the override.
	b, ok = RequestCostOn("x", "openai", "gpt-4o-mini", c, ReportedUSD(4))
	if !ok || b.Source != CostSourceProvider || b.Total != 4 || b.Unsplit || NanosOf(b.Input) != 2_000_000_000 {
		t.Fatalf("reported: %+v %v", b, ok)
	}
	// Other models keep the catalog's price.
	if b, ok = RequestCost("openai", "gpt-4o", c, ReportedCost{}); !ok || b.Source != CostSourceCatalog {
		t.Fatalf("catalog: %+v %v", b, ok)
	}
	// An override prices a model the catalog lacks.
	SetOverrides(NewOverrides(map[OverrideKey]Pricing{{"ollama", "llama3"}: {PerRequest: f(0.5)}}))
	if b, ok = RequestCost("ollama", "llama3", c, ReportedCost{}); !ok || b.Source != CostSourceOverride || b.Total != 0.5 {
		t.Fatalf("uncatalogued: %+v %v", b, ok)
	}
	// Clearing a set no longer in force changes nothing.
	ClearOverrides(o)
	if _, ok := OverridePrice("", "ollama", "llama3"); !ok {
		t.Fatal("cleared a newer set")
	}
	ClearOverrides(current.Load())
	if _, ok = RequestCost("ollama", "llama3", c, ReportedCost{}); ok {
		t.Fatal("cleared set still prices")
	}
}
