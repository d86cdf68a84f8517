package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

func TestScanFields(t *testing.T) {
	big := `"pad":"` + strings.Repeat("x", fullValidationLimit) + `",`
	cases := []struct {
		body                string
		model, stream, opts string
		code, param         string
	}{
		{body: `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`, model: `"m"`, stream: `true`, opts: `{"include_usage":true}`},
		{body: ` { "messages" : [ {"model":"a","stream":1} , "}" ] , "model" : "m\"x" } `, model: `"m\"x"`},
		{body: `{"a":{"model":{"model":1}},"model":"m","b":[["model"]],"c":"\\","d":-1.5e3,"e":null}`, model: `"m"`},
		{body: `{}`},
		{body: `{"model":"ok","messages":[],"model":"slow"}`, code: "duplicate_field", param: "model"},
		{body: `{"stream":false,"messages":[],"stream":true}`, code: "duplicate_field", param: "stream"},
		{body: `{"stream_options":null,"stream_options":{}}`, code: "duplicate_field", param: "stream_options"},
		// A parser unescapes keys before comparing them.
		{body: `{"model":"ok","mod\u0065l":"slow"}`, code: "duplicate_field", param: "model"},
		{body: `{"stre\u0061m":true}`, stream: `true`},
		{body: `{` + big + `"model":"a","model":"b"}`, code: "duplicate_field", param: "model"},
		// Large bodies skip full validation; the top level is still checked.
		{body: `{` + big + `"model":"a"}{"model":"b"}`, code: "invalid_json"},
		{body: `{` + big + `"model":"a"`, code: "invalid_json"},
		{body: `{` + big + `"model":"a",}`, code: "invalid_json"},
		{body: `{` + big + `"model" "a"}`, code: "invalid_json"},
		{body: `{` + big + `"messages":[{"a":"b"}`, code: "invalid_json"},
		{body: `{` + big + `"messages":"unclosed}`, code: "invalid_json"},
		{body: `[1]`, code: "invalid_json"},
		{body: `"model"`, code: "invalid_json"},
		{body: `{"model":}`, code: "invalid_json"},
	}
	for _, c := range cases {
		f, err := scanFields([]byte(c.body))
		name := c.body
		if len(name) > 80 {
			name = name[:40] + "..." + name[len(name)-30:]
		}
		if c.code != "" {
			var ge *apierr.Error
			if !errors.As(err, &ge) || ge.StatusCode != 400 || ge.Code == nil || *ge.Code != c.code {
				t.Errorf("%s: got %v, want code %s", name, err, c.code)
				continue
			}
			if c.param != "" && (ge.Param == nil || *ge.Param != c.param) {
				t.Errorf("%s: param %v, want %s", name, ge.Param, c.param)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(f.Model) != c.model || string(f.Stream) != c.stream || string(f.StreamOptions) != c.opts {
			t.Errorf("%s: got model %q stream %q options %q", name, f.Model, f.Stream, f.StreamOptions)
		}
	}
}

func TestModelNameAndStreamFlag(t *testing.T) {
	for _, c := range []struct {
		body, model string
		stream      bool
		bad         bool
	}{
		{`{"model":"gpt-4o","stream":true}`, "gpt-4o", true, false},
		{`{"model":"a\u002fb","stream":"true"}`, "a/b", true, false},
		{`{"model":"m","stream":0}`, "m", false, false},
		{`{"model":"m","stream":2}`, "m", true, false},
		{`{"model":""}`, "", false, true},
		{`{"model":null}`, "", false, true},
		{`{"model":7}`, "", false, true},
		{`{"model":["m"]}`, "", false, true},
	} {
		f, err := scanFields([]byte(c.body))
		if err != nil {
			t.Fatalf("%s: %v", c.body, err)
		}
		m, err := f.modelName()
		if (err != nil) != c.bad || m != c.model {
			t.Errorf("%s: model %q, %v", c.body, m, err)
		}
		if f.streamOn() != c.stream {
			t.Errorf("%s: stream %v", c.body, !c.stream)
		}
	}
}

// TestDuplicateFieldsRefused: every JSON model endpoint refuses a body
// that repeats model, stream or stream_options, before any upstream call,
// in the envelope of the route.
func TestDuplicateFieldsRefused(t *testing.T) {
	p := &stubProvider{name: "up", answer: func(providers.Endpoint, string, []byte) *http.Response { return jsonResponse(200, chatAnswer) }}
	s := newService(t, p)
	for _, path := range []string{"/v1/chat/completions", "/v1/embeddings", "/v1/responses", "/v1/messages", "/v1/messages/count_tokens"} {
		for _, body := range []string{
			`{"model":"m1","input":"x","messages":[],"model":"other"}`,
			`{"model":"m1","stream":false,"input":"x","messages":[],"stream":true}`,
			`{"model":"m1","stream":true,"stream_options":{},"messages":[],"stream_options":{"include_usage":true}}`,
		} {
			p.lastBody = nil
			rec, _ := serve(s, "POST", path, body)
			if rec.Code != 400 || p.lastBody != nil {
				t.Errorf("%s %s: %d, upstream called: %v", path, body, rec.Code, p.lastBody != nil)
				continue
			}
			var env struct {
				Type  string
				Error struct{ Type, Message, Code, Param string }
			}
			_ = json.Unmarshal(rec.Body.Bytes(), &env)
			if path == "/v1/messages" || path == "/v1/messages/count_tokens" {
				if env.Type != "error" || env.Error.Type != "invalid_request_error" || !strings.Contains(env.Error.Message, "repeats") {
					t.Errorf("%s: not the Anthropic envelope: %s", path, rec.Body.String())
				}
				continue
			}
			if env.Error.Code != "duplicate_field" || env.Error.Param == "" || env.Error.Type != "invalid_request_error" {
				t.Errorf("%s: %s", path, rec.Body.String())
			}
		}
	}
}

// FuzzScanFields compares scanFields with encoding/json on arbitrary
// bytes: no panic; on a valid JSON object it refuses exactly the bodies
// whose top level repeats model, stream or stream_options, and otherwise
// returns each of them as the decoder reads it.
//
// Bounded run: go test -run x -fuzz FuzzScanFields -fuzztime 10s ./proxy
func FuzzScanFields(f *testing.F) {
	for _, seed := range []string{
		`{"model":"m","stream":true}`, `{"model":"a","model":"b"}`, `{"mod\u0065l":1,"model":2}`,
		`{"a":{"model":1},"model":"x"}`, `{"s":"\\\"","stream_options":{"include_usage":true}}`,
		` {} `, `[]`, `{"model":"a"`, `{"a":[1,{"b":"]"}],"stream":null}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := scanFields(body)
		if !json.Valid(body) || firstByte(body) != '{' {
			return
		}
		seen := map[string]int{}
		want := map[string]json.RawMessage{}
		dec := json.NewDecoder(bytes.NewReader(body))
		if _, derr := dec.Token(); derr != nil {
			t.Fatal(derr)
		}
		for dec.More() {
			tok, _ := dec.Token()
			var v json.RawMessage
			if derr := dec.Decode(&v); derr != nil {
				t.Fatal(derr)
			}
			k := tok.(string)
			seen[k]++
			want[k] = v
		}
		dup := seen["model"] > 1 || seen["stream"] > 1 || seen["stream_options"] > 1
		var ge *apierr.Error
		if dup {
			if !errors.As(err, &ge) || *ge.Code != "duplicate_field" {
				t.Fatalf("%q: duplicate not refused: %v", body, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("%q: valid object refused: %v", body, err)
		}
		for name, raw := range map[string][]byte{"model": got.Model, "stream": got.Stream, "stream_options": got.StreamOptions} {
			if w, ok := want[name]; ok != (raw != nil) || (ok && !bytes.Equal(w, raw)) {
				t.Fatalf("%q: %s = %q, decoder read %q", body, name, raw, w)
			}
		}
	})
}

func firstByte(b []byte) byte {
	b = bytes.TrimLeft(b, " \t\r\n")
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
