package handlers

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// testKey is shaped like an OpenAI project key; it is not one.
const testKey = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"

// TestAuditMasksSecretsInStoredBodies: credentials in the request body,
// the answer and a failed attempt's body are masked in the entry and
// counted, while the next stage reads the request as the client sent it;
// with masking off they are stored as they were.
func TestAuditMasksSecretsInStoredBodies(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"my key is ` + testKey + `\nDB_PASSWORD=hunter22\nok?"}]}`
	for _, on := range []bool{true, false} {
		m := &memAudit{}
		au := testAuditing(m, 1<<20)
		au.RedactSecrets = on
		r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		info := reqinfo.New()
		r = r.WithContext(reqinfo.With(r.Context(), info))
		_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
			if got, _ := io.ReadAll(r.Body); string(got) != body {
				t.Errorf("next stage read %q", got)
			}
			h := http.Header{"Content-Type": {"application/json"}}
			info.AddAttempt(reqinfo.Attempt{Provider: "a", StatusCode: 401, ResponseHeader: h, StartedAt: time.Now(),
				ResponseBody: []byte(`{"error":"bad key ` + testKey + `"}`)})
			info.AddAttempt(reqinfo.Attempt{Provider: "b", StatusCode: 200, StartedAt: time.Now()})
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"choices":[{"message":{"content":"do not share `+testKey+`"}}]}`)
			return nil
		})
		e := m.entries[0]
		d := e.Data
		stored := string(d.RequestBody) + string(d.ResponseBody) + string(d.Attempts[0].ResponseBody)
		if on {
			if strings.Contains(stored, testKey) || strings.Contains(stored, "hunter22") || e.SecretsRedacted != 4 ||
				!strings.Contains(string(d.RequestBody), `DB_PASSWORD=[REDACTED:env_secret]`) ||
				!strings.Contains(string(d.ResponseBody), "[REDACTED:openai_key]") {
				t.Errorf("masked: %d secrets, stored %s", e.SecretsRedacted, stored)
			}
		} else if e.SecretsRedacted != 0 || string(d.RequestBody) != body || !strings.Contains(stored, testKey) {
			t.Errorf("unmasked: %d secrets, stored %s", e.SecretsRedacted, stored)
		}
	}
}

// TestAuditMasksSecretsInStreams: a streamed answer is masked in the
// object it adds up to.
func TestAuditMasksSecretsInStreams(t *testing.T) {
	m := &memAudit{}
	au := testAuditing(m, 1<<20)
	r := httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true,"messages":[]}`))
	r = r.WithContext(reqinfo.With(r.Context(), reqinfo.New()))
	_ = auditRoute(au, chatRoute(t), httptest.NewRecorder(), r, func(w http.ResponseWriter, r *http.Request) error {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, part := range []string{"key: sk-proj-Ab3dEf6hIj9k", "Lm2nOp5qRs8tUv1wXy4z done"} {
			_, _ = io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"`+part+`"}}]}`+"\n\n")
		}
		_, _ = io.WriteString(w, "data: [DONE]\n\n")
		return nil
	})
	e := m.entries[0]
	if got := string(e.Data.ResponseBody); strings.Contains(got, testKey) || !strings.Contains(got, "[REDACTED:openai_key] done") || e.SecretsRedacted != 1 {
		t.Errorf("%d secrets, stored %s", e.SecretsRedacted, got)
	}
}
