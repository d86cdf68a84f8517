package proxy

import (
	"testing"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// bodyOf is body as an earlier stage read and scanned it.
func bodyOf(body string) *reqinfo.Body {
	i := reqinfo.New()
	i.SetBody([]byte(body))
	return i.Body()
}

func TestWorstCaseCost(t *testing.T) {
	mini := reqinfo.Target{ProviderType: "openai", Model: "gpt-4o-mini"}
	m, ok := catalog.Lookup("openai", "gpt-4o-mini")
	if !ok || m.MaxOutputTokens <= 0 {
		t.Fatalf("gpt-4o-mini: %+v", m)
	}
	price := func(in, out int64) catalog.Nanos {
		b, ok := catalog.Price("openai", "gpt-4o-mini", catalog.Usage{InputTokens: in, OutputTokens: out, TotalTokens: in + out})
		if !ok {
			t.Fatal("no price")
		}
		return catalog.NanosOf(b.Total)
	}
	// "hi" in one message: 3 + 4 + 1 estimated input tokens.
	responses := `{"model":"gpt-4o-mini","input":"hello","max_output_tokens":5}`
	for _, c := range []struct {
		name, body string
		want       catalog.Nanos
	}{
		{"max_tokens", `{"model":"gpt-4o-mini","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, price(8, 100)},
		{"max_completion_tokens", `{"model":"gpt-4o-mini","max_completion_tokens":7,"messages":[{"role":"user","content":"hi"}]}`, price(8, 7)},
		{"catalog ceiling", `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]}`, price(8, m.MaxOutputTokens)},
		{"not messages: bytes/4", responses, price(int64(len(responses)+3)/4, 5)},
	} {
		got, ok := WorstCaseCost(mini, bodyOf(c.body))
		if !ok || got != c.want {
			t.Errorf("%s: %v %v, want %v", c.name, got, ok, c.want)
		}
	}
	if _, ok := WorstCaseCost(reqinfo.Target{ProviderType: "ollama", Model: "llama3"}, bodyOf(`{"messages":[]}`)); ok {
		t.Error("an unpriced model is reservable")
	}
	if _, ok := WorstCaseCost(mini, nil); ok {
		t.Error("no body is reservable")
	}
}
