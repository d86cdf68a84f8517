package providers

import (
	"net/http"
	"strings"
	"testing"
)

// mustNew builds an adapter through New or fails the test.
func mustNew(t testing.TB, o Options) Provider {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNewPicksTheAdapterOfTheTypesShape(t *testing.T) {
	client := &http.Client{}
	for _, ti := range Types() {
		p, err := New(Options{Name: "i", Type: ti.Name, BaseURL: "http://up.invalid", Client: client})
		if !ti.Served {
			if err == nil || !strings.Contains(err.Error(), "not served") {
				t.Errorf("%s: unserved type built: %v", ti.Name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", ti.Name, err)
			continue
		}
		switch p.(type) {
		case *Anthropic:
			if ti.Shape != ShapeMessages {
				t.Errorf("%s: messages adapter for shape %d", ti.Name, ti.Shape)
			}
		case *OpenAICompat:
			if ti.Shape != ShapeChat {
				t.Errorf("%s: chat adapter for shape %d", ti.Name, ti.Shape)
			}
		}
		if p.Type() != ti.Name || p.Name() != "i" || p.Shape() != ti.Shape || p.StreamUsageOption() != ti.StreamUsageOption {
			t.Errorf("%s: adapter reports type %q shape %d stream option %v", ti.Name, p.Type(), p.Shape(), p.StreamUsageOption())
		}
		for _, ep := range []Endpoint{EndpointChat, EndpointEmbeddings, EndpointModels, EndpointResponses,
			EndpointMessages, EndpointCountTokens, EndpointSpeech, EndpointTranscriptions} {
			if p.Supports(ep) != ti.Supports(ep) {
				t.Errorf("%s: adapter Supports(%s) = %v, table says %v", ti.Name, ep, p.Supports(ep), ti.Supports(ep))
			}
		}
	}
}

func TestNewRefusesBadOptions(t *testing.T) {
	for _, o := range []Options{
		{Name: "x", Type: "OpenAI", Client: &http.Client{}},
		{Name: "x", Type: "", Client: &http.Client{}},
		{Name: "x", Type: "openai"},
	} {
		if p, err := New(o); err == nil {
			t.Errorf("%+v: built %v", o, p)
		}
	}
}
