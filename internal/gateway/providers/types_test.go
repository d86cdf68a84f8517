package providers

import (
	"net/url"
	"strings"
	"testing"
)

// TestTypeTableRowsAreComplete checks every row states each fact the
// gateway reads from it, consistently.
func TestTypeTableRowsAreComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, ti := range Types() {
		name := ti.Name
		if name == "" || name != strings.ToLower(name) || seen[name] {
			t.Errorf("row %q: names must be unique, lower case and non-empty", name)
		}
		seen[name] = true
		if got, ok := LookupType(name); !ok || got.Name != name {
			t.Errorf("%s: LookupType does not find the row", name)
		}
		if len(ti.Endpoints) == 0 {
			t.Errorf("%s: no endpoints", name)
		}
		if ti.AuthHeader == "" {
			t.Errorf("%s: no credential header", name)
		}
		switch ti.Shape {
		case ShapeChat:
			if !ti.Supports(EndpointChat) || !ti.Supports(EndpointModels) {
				t.Errorf("%s: speaks chat but does not serve chat completions and models", name)
			}
		case ShapeMessages:
			if !ti.Supports(EndpointMessages) || ti.Supports(EndpointChat) {
				t.Errorf("%s: speaks messages but its endpoints disagree", name)
			}
		case ShapeAudio:
			if !ti.Supports(EndpointSpeech) || ti.Supports(EndpointChat) || ti.Supports(EndpointMessages) {
				t.Errorf("%s: audio-only but its endpoints disagree", name)
			}
		default:
			t.Errorf("%s: unknown shape %d", name, ti.Shape)
		}
		if generates := ti.Shape != ShapeAudio; generates != (ti.MaxTokensField == maxTokens || ti.MaxTokensField == maxCompletionTokens) {
			t.Errorf("%s: output-token field %q for shape %d", name, ti.MaxTokensField, ti.Shape)
		}
		if ti.StreamUsageOption && ti.Shape != ShapeChat {
			t.Errorf("%s: stream_options only exists on chat completions", name)
		}
		if ti.DefaultBaseURL == "" {
			if !ti.Deployments && !ti.InProcess {
				t.Errorf("%s: no default base URL, yet neither deployment-style nor in-process", name)
			}
		} else if u, err := url.Parse(ti.DefaultBaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
			strings.HasSuffix(ti.DefaultBaseURL, "/") {
			t.Errorf("%s: default base URL %q is not an absolute http(s) URL without a trailing slash", name, ti.DefaultBaseURL)
		}
		if ti.Deployments != (ti.DefaultAPIVersion != "") {
			t.Errorf("%s: deployment-style types, and only they, need a default api-version", name)
		}
		if ti.InProcess {
			if ti.NeedsKey || ti.EnvPrefix != "" {
				t.Errorf("%s: the simulator needs no key and is not registered from the environment", name)
			}
		} else if ti.EnvPrefix != strings.ToUpper(name) {
			t.Errorf("%s: environment prefix %q, want %q", name, ti.EnvPrefix, strings.ToUpper(name))
		}
		if !ti.Served && ti.Shape != ShapeAudio {
			t.Errorf("%s: only the audio type is declared ahead of its adapter", name)
		}
	}
	if len(seen) != 13 {
		t.Errorf("%d types, want 13", len(seen))
	}
	if _, ok := LookupType("OpenAI"); ok {
		t.Error("type names are case-sensitive")
	}
	if names := TypeNames(); len(names) != len(seen) || names[0] != "openai" || names[len(names)-1] != "mock" {
		t.Errorf("TypeNames = %v", names)
	}
}

// TestTypeTableFacts pins the facts that differ between types.
func TestTypeTableFacts(t *testing.T) {
	cases := []struct {
		name, baseURL, header, scheme, maxTokens, idPrefix string
		needsKey, streamOpt, deployments, served, hasV1    bool
		shape                                              Shape
		responses                                          bool
	}{
		{"openai", "https://api.openai.com/v1", "Authorization", "Bearer", "max_completion_tokens", "", true, true, false, true, true, ShapeChat, true},
		{"azure", "", "api-key", "", "max_completion_tokens", "", true, true, true, true, false, ShapeChat, false},
		{"groq", "https://api.groq.com/openai/v1", "Authorization", "Bearer", "max_tokens", "", true, true, false, true, true, ShapeChat, false},
		{"xai", "https://api.x.ai/v1", "Authorization", "Bearer", "max_tokens", "", true, true, false, true, true, ShapeChat, false},
		{"deepseek", "https://api.deepseek.com/v1", "Authorization", "Bearer", "max_tokens", "", true, true, false, true, true, ShapeChat, false},
		{"openrouter", "https://openrouter.ai/api/v1", "Authorization", "Bearer", "max_tokens", "", true, true, false, true, true, ShapeChat, false},
		{"mistral", "https://api.mistral.ai/v1", "Authorization", "Bearer", "max_tokens", "", true, false, false, true, true, ShapeChat, false},
		{"ollama", "http://localhost:11434/v1", "Authorization", "Bearer", "max_tokens", "", false, true, false, true, true, ShapeChat, false},
		{"vllm", "http://localhost:8000/v1", "Authorization", "Bearer", "max_tokens", "", false, true, false, true, true, ShapeChat, false},
		{"gemini", "https://generativelanguage.googleapis.com/v1beta/openai", "Authorization", "Bearer", "max_tokens", "models/", true, true, false, true, false, ShapeChat, false},
		{"anthropic", "https://api.anthropic.com/v1", "x-api-key", "", "max_tokens", "", true, false, false, true, true, ShapeMessages, false},
		{"elevenlabs", "https://api.elevenlabs.io", "xi-api-key", "", "", "", true, false, false, true, false, ShapeAudio, false},
		{"mock", "", "Authorization", "Bearer", "max_tokens", "", false, true, false, true, false, ShapeChat, false},
	}
	for _, c := range cases {
		ti, ok := LookupType(c.name)
		if !ok {
			t.Errorf("%s: missing", c.name)
			continue
		}
		if ti.DefaultBaseURL != c.baseURL || ti.AuthHeader != c.header || ti.AuthScheme != c.scheme ||
			ti.MaxTokensField != c.maxTokens || ti.ModelIDPrefix != c.idPrefix || ti.NeedsKey != c.needsKey ||
			ti.StreamUsageOption != c.streamOpt || ti.Deployments != c.deployments || ti.Served != c.served ||
			ti.DefaultBaseURLHasV1() != c.hasV1 || ti.Shape != c.shape || ti.Supports(EndpointResponses) != c.responses {
			t.Errorf("%s: row %+v", c.name, ti)
		}
	}
	if el, _ := LookupType("elevenlabs"); el.EnvPrefix+"_API_KEY" != "ELEVENLABS_API_KEY" ||
		len(el.Endpoints) != 2 || !el.Supports(EndpointSpeech) || !el.Supports(EndpointTranscriptions) {
		t.Errorf("elevenlabs: %+v", el)
	}
	if az, _ := LookupType("azure"); az.DefaultAPIVersion != "2024-10-21" {
		t.Errorf("azure api-version %q", az.DefaultAPIVersion)
	}
}

func TestLookupTypeReturnsACopy(t *testing.T) {
	a, _ := LookupType("openai")
	a.DefaultBaseURL, a.Served = "http://changed", false
	if b, _ := LookupType("openai"); b.DefaultBaseURL != "https://api.openai.com/v1" || !b.Served {
		t.Fatal("a caller changed the table")
	}
}

func TestMaxTokensFieldOf(t *testing.T) {
	for name, want := range map[string]string{"openai": "max_completion_tokens", "azure": "max_completion_tokens", "groq": "max_tokens", "mistral": "max_tokens", "nope": "max_tokens"} {
		if got := MaxTokensFieldOf(name); got != want {
			t.Errorf("MaxTokensFieldOf(%q) = %q, want %q", name, got, want)
		}
	}
}
