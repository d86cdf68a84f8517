package audit

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

func TestRedactorHeaders(t *testing.T) {
	const providerKey = "sk-proj-abcdefghijklmnop"
	r := NewRedactor([]string{providerKey, "short", providerKey})
	h := http.Header{}
	for _, name := range []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "Cookie", "Set-Cookie"} {
		h.Set(name, "anything")
	}
	h.Set("X-Forwarded-Secret", "Bearer "+providerKey)
	h["X-Multi"] = []string{"a", "b"}
	h.Set("X-Short", "short")
	h.Set("Content-Type", "application/json")
	got := r.Headers(h)
	want := map[string]string{
		"authorization": Redacted, "proxy-authorization": Redacted, "x-api-key": Redacted, "api-key": Redacted,
		"x-goog-api-key": Redacted, "cookie": Redacted, "set-cookie": Redacted,
		"x-forwarded-secret": Redacted, "x-multi": "a, b", "x-short": "short", "content-type": "application/json",
	}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), providerKey) || strings.Contains(string(b), "anything") {
		t.Fatalf("a secret survived: %s", b)
	}
	var zero *Redactor
	if zero.Headers(http.Header{"Authorization": {"x"}})["authorization"] != Redacted {
		t.Fatal("nil Redactor must still redact the named headers")
	}
	if (&Redactor{}).Headers(nil) != nil {
		t.Fatal("no headers: want nil")
	}
}

func TestCaptureBody(t *testing.T) {
	cases := []struct {
		name, ct, body string
		max            int
		want           string
		tooBig         bool
	}{
		{"json kept", "application/json", `{"a": [1, 2]}`, 0, `{"a": [1, 2]}`, false},
		{"json without type", "", `[1,2]`, 0, `[1,2]`, false},
		{"text as string", "text/plain", "hello\n\"world\"", 0, `"hello\n\"world\""`, false},
		{"broken json as string", "application/json", `{"a":`, 0, `"{\"a\":"`, false},
		{"audio summarised", "audio/mpeg", "ID3\x00\x01binary", 0, `{"content_type":"audio/mpeg","bytes":11}`, false},
		{"multipart summarised", "multipart/form-data; boundary=x", "--x\r\nfile", 0, `{"content_type":"multipart/form-data","bytes":9}`, false},
		{"binary summarised", "application/x-custom", "\xff\xfe\x00", 0, `{"content_type":"application/x-custom","bytes":3}`, false},
		{"over the cap", "application/json", `{"a":1}`, 6, "", true},
		{"at the cap", "application/json", `{"a":1}`, 7, `{"a":1}`, false},
		{"empty", "application/json", "", 0, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(c.body)
			got, tooBig := CaptureBody(c.ct, body, c.max)
			if string(got) != c.want || tooBig != c.tooBig {
				t.Fatalf("got %s, %v; want %s, %v", got, tooBig, c.want, c.tooBig)
			}
			if got != nil && !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
			if len(body) > 0 && len(got) > 0 {
				body[0] ^= 0xFF // the record must not share the caller's buffer
				if string(got) != c.want {
					t.Fatal("record aliases the body")
				}
			}
		})
	}
}

func TestAPIKeyHash(t *testing.T) {
	// SHA-256("abc") = ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
	if got := APIKeyHash("abc"); got != "ba7816bf8f01cfea" {
		t.Fatalf("APIKeyHash(abc) = %s", got)
	}
	if APIKeyHash("") != "" {
		t.Fatal("empty credential must hash to empty")
	}
}

// TestLowerName: the table of common names is in lower case, and names
// outside it are lowered too.
func TestLowerName(t *testing.T) {
	for name, l := range commonLower {
		if l != strings.ToLower(name) || http.CanonicalHeaderKey(name) != name {
			t.Errorf("%q -> %q", name, l)
		}
	}
	if lowerName("X-Other-Header") != "x-other-header" || lowerName("content-type") != "content-type" {
		t.Error("names outside the table")
	}
}

// BenchmarkRedactorHeaders records the headers of a chat request sent by
// an OpenAI SDK.
func BenchmarkRedactorHeaders(b *testing.B) {
	h := http.Header{}
	for _, kv := range [][2]string{{"Accept", "application/json"}, {"Authorization", "Bearer k"}, {"Content-Type", "application/json"},
		{"Content-Length", "1024"}, {"User-Agent", "OpenAI/Python 1.99.0"}, {"X-Stainless-Lang", "python"},
		{"X-Stainless-Os", "Linux"}, {"X-Stainless-Retry-Count", "0"}, {"Accept-Encoding", "gzip, deflate"}} {
		h.Set(kv[0], kv[1])
	}
	r := NewRedactor([]string{"sk-proj-abcdefghijklmnop"})
	b.ReportAllocs()
	for b.Loop() {
		r.Headers(h)
	}
}

// TestRedactorKeyHeaders: xi-api-key is redacted by name; a value holding
// a managed key (by its prefix) or a gateway key of any length (the
// master key) is redacted whole; in sec-websocket-protocol only the key
// of openai-insecure-api-key.<key> is, the other subprotocols stay
// readable. Nothing recorded holds a key.
func TestRedactorKeyHeaders(t *testing.T) {
	const master, managed, realtime = "mk-7", "sk_mg_0123456789ABCDEFabcdef0123456789", "sk-proj-realtime-abcdef"
	r := NewRedactor([]string{"sk-proj-abcdefghijklmnop"}, master, "")
	h := http.Header{}
	h.Set("Xi-Api-Key", "voice-key")
	h.Set("X-Managed", "token="+managed)
	h.Set("X-Master", "Bearer "+master)
	h.Set("Sec-Websocket-Protocol", "realtime, openai-insecure-api-key."+realtime+", openai-beta.realtime-v1")
	h.Set("X-Plain", "kept")
	got := r.Headers(h)
	want := map[string]string{
		"xi-api-key": Redacted, "x-managed": Redacted, "x-master": Redacted, "x-plain": "kept",
		"sec-websocket-protocol": "realtime, openai-insecure-api-key." + Redacted + ", openai-beta.realtime-v1",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	b, _ := json.Marshal(got)
	for _, s := range []string{master, managed, realtime, "voice-key"} {
		if strings.Contains(string(b), s) {
			t.Errorf("%q survived: %s", s, b)
		}
	}
	var zero *Redactor
	if got := zero.Headers(http.Header{"X-Managed": {managed}}); got["x-managed"] != Redacted {
		t.Errorf("a nil Redactor keeps a managed key: %v", got)
	}
	for in, want := range map[string]string{
		"realtime":                               "realtime",
		"OpenAI-Insecure-API-Key.k1":             "OpenAI-Insecure-API-Key." + Redacted,
		"realtime,openai-insecure-api-key.k1":    "realtime, openai-insecure-api-key." + Redacted,
		"x-openai-insecure-api-key.k1, realtime": Redacted,
		"openai-insecure-api-key.":               "openai-insecure-api-key." + Redacted,
	} {
		if got := redactProtocols(in); got != want {
			t.Errorf("redactProtocols(%q) = %q, want %q", in, got, want)
		}
	}
}
