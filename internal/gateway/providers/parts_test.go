package providers

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
)

func TestMemberSplit(t *testing.T) {
	cases := []struct {
		in      string
		end     int
		sep     string
		spliced string
	}{
		{`{"a":1}`, 6, ",", `{"a":1,"x":2}`},
		{"{\"a\":{\"b\":1}}\n", 12, ",", "{\"a\":{\"b\":1},\"x\":2}\n"},
		{`{}`, 1, "", `{"x":2}`},
		{`{ }`, 2, "", `{ "x":2}`},
	}
	for _, c := range cases {
		end, sep := MemberSplit([]byte(c.in))
		if end != c.end || sep != c.sep {
			t.Errorf("%s: %d %q, want %d %q", c.in, end, sep, c.end, c.sep)
		}
		if got := c.in[:end] + sep + `"x":2` + c.in[end:]; got != c.spliced {
			t.Errorf("%s: spliced %s", c.in, got)
		}
	}
}

func TestDoPartsSendsTheBodyInParts(t *testing.T) {
	var got []string
	var lengths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got, lengths = append(got, string(b)), append(lengths, strconv.FormatInt(r.ContentLength, 10))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	p := mustNew(t, Options{Name: "x", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	ps, ok := p.(PartsSender)
	if !ok {
		t.Fatal("openai provider is not a PartsSender")
	}
	body := []byte(`{"model":"m","stream":true}`)
	resp, err := ps.DoParts(context.Background(), EndpointChat, "m", [][]byte{body[:len(body)-1], []byte(`,"stream_options":{"include_usage":true}`), body[len(body)-1:]})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	want := `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`
	if len(got) != 1 || got[0] != want || lengths[0] != strconv.Itoa(len(want)) {
		t.Fatalf("upstream got %q with lengths %v, want %s", got, lengths, want)
	}
	if string(body) != `{"model":"m","stream":true}` {
		t.Fatalf("body changed: %s", body)
	}
}

// TestDoSendsOnceAndNeverFollowsARedirect: a model call reaches the
// upstream once; a redirected one is answered with the redirect, which is
// not followed (the prompt and key stay where they were sent); a
// transport error reads as http.Client's.
func TestDoSendsOnceAndNeverFollowsARedirect(t *testing.T) {
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, r.URL.Path+" "+string(b)+" "+r.Header.Get("Authorization"))
		if r.URL.Path == "/old/chat/completions" {
			http.Redirect(w, r, "/v1/chat/completions", http.StatusPermanentRedirect)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	body := []byte(`{"model":"m"}`)
	for base, status := range map[string]int{"/v1": 200, "/old": http.StatusPermanentRedirect} {
		got = nil
		p := mustNew(t, Options{Name: "x", Type: "openai", BaseURL: srv.URL + base, APIKey: "k", Client: srv.Client()})
		resp, err := p.Do(context.Background(), EndpointChat, "m", body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if want := base + "/chat/completions " + string(body) + " Bearer k"; resp.StatusCode != status || len(got) != 1 || got[0] != want {
			t.Fatalf("%s: status %d, upstream got %q", base, resp.StatusCode, got)
		}
	}
	srv.Close()
	p := mustNew(t, Options{Name: "x", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	_, err := p.Do(context.Background(), EndpointChat, "m", body)
	var ue *url.Error
	if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), `Post "`+srv.URL+`/v1/chat/completions": `) {
		t.Fatalf("transport error %v", err)
	}
}

// BenchmarkDo is one model call on a kept-alive loopback connection: what
// the adapter and the HTTP client cost per call.
func BenchmarkDo(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	p := mustNew(b, Options{Name: "x", Type: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Client: srv.Client()})
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := p.Do(context.Background(), EndpointChat, "m", body)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// TestDoAsHTTPClient: a base URL's user info becomes Basic authentication
// unless the adapter set Authorization, and an error names the URL with
// its password masked, as http.Client does.
func TestDoAsHTTPClient(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		_, _ = io.WriteString(w, `{}`)
	}))
	base := strings.Replace(srv.URL, "http://", "http://user:pa55@", 1) + "/v1"
	p := mustNew(t, Options{Name: "x", Type: "ollama", BaseURL: base, Client: srv.Client()})
	resp, err := p.Do(context.Background(), EndpointChat, "m", []byte(`{"model":"m"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if auth != "Basic dXNlcjpwYTU1" {
		t.Fatalf("Authorization %q", auth)
	}
	p = mustNew(t, Options{Name: "x", Type: "openai", BaseURL: base, APIKey: "k", Client: srv.Client()})
	if resp, err = p.Do(context.Background(), EndpointChat, "m", []byte(`{"model":"m"}`)); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if auth != "Bearer k" {
		t.Fatalf("Authorization %q with a key", auth)
	}
	srv.Close()
	_, err = p.Do(context.Background(), EndpointChat, "m", []byte(`{"model":"m"}`))
	if err == nil || strings.Contains(err.Error(), "pa55") || !strings.Contains(err.Error(), "user:***@") {
		t.Fatalf("error %v", err)
	}
}
