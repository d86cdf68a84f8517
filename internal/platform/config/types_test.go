package config

import (
	"reflect"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

func TestProviderTypes(t *testing.T) {
	tests := []struct {
		typ      string
		known    bool
		needsKey bool
		baseURL  string
	}{
		{"openai", true, true, "https://api.openai.com/v1"},
		{"groq", true, true, "https://api.groq.com/openai/v1"},
		{"xai", true, true, "https://api.x.ai/v1"},
		{"deepseek", true, true, "https://api.deepseek.com/v1"},
		{"openrouter", true, true, "https://openrouter.ai/api/v1"},
		{"mistral", true, true, "https://api.mistral.ai/v1"},
		{"ollama", true, false, "http://localhost:11434/v1"},
		{"vllm", true, false, "http://localhost:8000/v1"},
		{"gemini", true, true, "https://generativelanguage.googleapis.com/v1beta/openai"},
		{"anthropic", true, true, "https://api.anthropic.com/v1"},
		{"elevenlabs", true, true, "https://api.elevenlabs.io"},
		{"azure", true, true, ""},
		{"mock", true, false, ""},
		{"OpenAI", false, false, ""},
		{"", false, false, ""},
	}
	for _, tt := range tests {
		if got := KnownType(tt.typ); got != tt.known {
			t.Errorf("KnownType(%q) = %v", tt.typ, got)
		}
		if got := TypeNeedsKey(tt.typ); got != tt.needsKey {
			t.Errorf("TypeNeedsKey(%q) = %v", tt.typ, got)
		}
		if got := DefaultBaseURL(tt.typ); got != tt.baseURL {
			t.Errorf("DefaultBaseURL(%q) = %q, want %q", tt.typ, got, tt.baseURL)
		}
	}
	if n := len(KnownTypes()); n != 13 {
		t.Errorf("KnownTypes has %d entries, want 13", n)
	}
	if !reflect.DeepEqual(KnownTypes(), providers.TypeNames()) {
		t.Errorf("KnownTypes %v is not the provider-type table %v", KnownTypes(), providers.TypeNames())
	}
}

func TestProviderTypeQuestions(t *testing.T) {
	tests := []struct {
		typ                  string
		needsBase, inProcess bool
		apiVersion           string
	}{
		{"azure", true, false, "2024-10-21"},
		{"openai", false, false, ""},
		{"ollama", false, false, ""},
		{"elevenlabs", false, false, ""},
		{"mock", false, true, ""},
		{"nope", false, false, ""},
	}
	for _, tt := range tests {
		if got := TypeNeedsBaseURL(tt.typ); got != tt.needsBase {
			t.Errorf("TypeNeedsBaseURL(%q) = %v", tt.typ, got)
		}
		if got := TypeInProcess(tt.typ); got != tt.inProcess {
			t.Errorf("TypeInProcess(%q) = %v", tt.typ, got)
		}
		if got := DefaultAPIVersion(tt.typ); got != tt.apiVersion {
			t.Errorf("DefaultAPIVersion(%q) = %q", tt.typ, got)
		}
	}
}
