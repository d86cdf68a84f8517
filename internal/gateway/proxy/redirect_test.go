package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// elsewhere is a listener on another host (localhost, where the rig's
// upstream is 127.0.0.1) and port that must receive nothing: the host an
// upstream's redirect points to.
type elsewhere struct {
	*httptest.Server
	url  string // the server's URL with the host localhost
	mu   sync.Mutex
	seen []string
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.seen = append(e.seen, r.Method+" "+r.URL.String()+" "+strings.Join(r.Header.Values("Authorization"), ",")+
			strings.Join(r.Header.Values("X-Api-Key"), ","))
		e.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"foreign","choices":[]}`)
	}))
	t.Cleanup(e.Close)
	e.url = strings.Replace(e.URL, "127.0.0.1", "localhost", 1)
	return e
}

// untouched fails the test when anything reached the listener.
func (e *elsewhere) untouched(t *testing.T) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.seen) > 0 {
		t.Fatalf("the redirect was followed: %q", e.seen)
	}
}

// noFollow is a client of the rig that takes a redirect as the answer.
var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// rigSend sends one request to the rig's gateway without following
// redirects and returns the answer read whole.
func rigSend(t *testing.T, rig *faultRig, method, path, contentType, body string) (*http.Response, string, error) {
	t.Helper()
	req, _ := http.NewRequest(method, rig.gw.URL+path, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := noFollow.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}

// TestUpstreamRedirectIsNotFollowed: an upstream that answers 307 to
// another host (with the provider's key in the Location, say) is never
// followed. On the model endpoints (chat, responses and messages, whole
// and streamed, transcriptions and realtime handshakes) the client gets
// 502 upstream_redirect in the gateway shape, without the Location, which
// goes to the log with the key removed; passthrough relays the 307 as it
// came, with the key removed from its headers. Nothing reaches the other
// host.
func TestUpstreamRedirectIsNotFollowed(t *testing.T) {
	rig := newFaultRig(t, UpstreamLimits{})
	other := newElsewhere(t)
	var mu sync.Mutex
	var location string
	rig.upstream(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		location = other.url + r.URL.Path + "?k=" + rigOpenAIKey
		mu.Unlock()
		w.Header().Set("X-Upstream", "yes")
		http.Redirect(w, r, location, http.StatusTemporaryRedirect)
	})
	formCT, form := transcriptionForm("model", "m1")
	for _, tc := range []struct{ name, path, ct, body string }{
		{"chat", shapes[0].path, "application/json", shapes[0].body},
		{"chat stream", shapes[0].path, "application/json", shapes[0].stream},
		{"responses", shapes[1].path, "application/json", shapes[1].body},
		{"responses stream", shapes[1].path, "application/json", shapes[1].stream},
		{"messages", shapes[2].path, "application/json", shapes[2].body},
		{"messages stream", shapes[2].path, "application/json", shapes[2].stream},
		{"transcriptions", "/v1/audio/transcriptions", formCT, form},
	} {
		rig.drain()
		resp, body, _ := rigSend(t, rig, "POST", tc.path, tc.ct, tc.body)
		if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d %v %s", tc.name, resp.StatusCode, resp.Header, body)
		}
		if tc.name == "messages" || tc.name == "messages stream" {
			if !strings.Contains(body, `"type":"api_error"`) || !strings.Contains(body, "redirect") {
				t.Errorf("%s: %s", tc.name, body)
			}
		} else if !strings.Contains(body, `"code":"upstream_redirect"`) || !strings.Contains(body, `"type":"provider_error"`) {
			t.Errorf("%s: %s", tc.name, body)
		}
		if strings.Contains(body, "localhost") || strings.Contains(body, "?k=") {
			t.Errorf("%s: the answer names where the redirect pointed: %s", tc.name, body)
		}
		rig.clean(rigCall{body: body})
		if at := rig.served().Attempts(); len(at) != 1 || at[0].StatusCode != 307 || at[0].ErrCode != "upstream_redirect" ||
			at[0].ResponseHeader != nil {
			t.Errorf("%s: attempts %+v", tc.name, at)
		}
		rig.released()
	}

	// A realtime handshake: the client's is answered 502.
	_, resp, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(rig.gw.URL, "http")+"/v1/realtime?model=m1", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusBadGateway {
		t.Errorf("realtime: %v %v", resp, err)
	} else if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), "upstream_redirect") {
		t.Errorf("realtime: %s", b)
	}

	// The log has where it pointed, without the key.
	logged := 0
	for _, e := range rig.logs.FilterMessageSnippet("redirect").All() {
		loc, _ := e.ContextMap()["location"].(string)
		if !strings.HasPrefix(loc, other.url) || strings.Contains(loc, rigOpenAIKey) || !strings.Contains(loc, "[redacted]") {
			t.Errorf("logged location %q", loc)
		}
		logged++
	}
	if logged < 8 {
		t.Errorf("%d redirects logged", logged)
	}

	// Passthrough relays the redirect, its key removed.
	// A GET's redirect has a body that names the Location, key and all.
	for _, tc := range []struct{ method, path string }{
		{"POST", "/p/up/chat/completions"},
		{"POST", "/p/an/messages"},
		{"GET", "/p/up/models"},
	} {
		resp, body, _ := rigSend(t, rig, tc.method, tc.path, "application/json", shapes[0].body)
		want := "[REDACTED]" // the Location held the key
		if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != want || resp.Header.Get("X-Upstream") != "yes" {
			t.Errorf("%s: %d %q %s", tc.path, resp.StatusCode, resp.Header.Get("Location"), body)
		}
		if strings.Contains(body, rigOpenAIKey) || tc.method == "GET" && !strings.Contains(body, "[redacted]") {
			t.Errorf("%s: body %q", tc.path, body)
		}
		rig.released()
	}
	other.untouched(t)
}
