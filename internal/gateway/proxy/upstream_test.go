package proxy

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

func TestUpstreamsRedactAndLimits(t *testing.T) {
	u := NewUpstreams(map[string]UpstreamLimits{"a": {ReadIdleTimeout: time.Second, MaxEventBytes: -1}},
		[]string{"sk-abc", " ", "sk-abc-longer"})
	if got := u.redact("keys sk-abc-longer and sk-abc"); got != "keys [redacted] and [redacted]" {
		t.Errorf("redact = %q", got)
	}
	if l := u.limitsFor("a"); l.ReadIdleTimeout != time.Second || l.MaxEventBytes != DefaultMaxEventBytes ||
		l.MaxResponseBytes != DefaultMaxResponseBytes || l.Timeout != 0 {
		t.Errorf("limits of a = %+v", l)
	}
	if l := u.limitsFor("unknown"); l != defaultLimits || l.ReadIdleTimeout != DefaultReadIdleTimeout {
		t.Errorf("limits of an unconfigured provider = %+v", l)
	}
	var none *Upstreams
	if none.redact("sk-abc") != "sk-abc" || none.limitsFor("a") != defaultLimits {
		t.Error("a nil Upstreams is not the defaults")
	}
}

// TestSecretPolicy: a request whose body holds a credential is refused
// on a path whose policy blocks, sent with the credential masked (and a
// revision saying so) on a path that masks, and sent as it is elsewhere;
// a body without one is sent as it is everywhere.
func TestSecretPolicy(t *testing.T) {
	const key = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"
	withKey := `{"model":"up/m1","messages":[{"role":"user","content":"my key is ` + key + `"}]}`
	clean := `{"model":"up/m1","messages":[{"role":"user","content":"hello"}]}`
	s, up := planService(t)
	s.SecretAction = func(userPath string) audit.SecretAction {
		switch userPath {
		case "/block":
			return audit.SecretBlock
		case "/mask":
			return audit.SecretMask
		}
		return audit.SecretAllow
	}
	send := func(userPath, body string) (*httptest.ResponseRecorder, []byte, int) {
		req, info := planRequest(body, true)
		info.UserPath = userPath
		up.lastBody = nil
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		return rec, up.lastBody, len(info.Revisions())
	}

	rec, sent, _ := send("/block", withKey)
	if rec.Code != http.StatusBadRequest || sent != nil {
		t.Fatalf("block: %d %s, upstream got %q", rec.Code, rec.Body, sent)
	}
	var e struct {
		Error struct{ Code, Message string }
	}
	_ = json.Unmarshal(rec.Body.Bytes(), &e)
	if e.Error.Code != CodeSecretInRequest || !strings.Contains(e.Error.Message, audit.SecretOpenAIKey) || strings.Contains(rec.Body.String(), key) {
		t.Errorf("block answer: %s", rec.Body)
	}

	rec, sent, revisions := send("/mask", withKey)
	if rec.Code != http.StatusOK || strings.Contains(string(sent), key) ||
		!strings.Contains(string(sent), "[REDACTED:"+audit.SecretOpenAIKey+"]") || revisions != 1 {
		t.Fatalf("mask: %d, upstream got %s, %d revisions", rec.Code, sent, revisions)
	}

	for _, c := range []struct{ path, body string }{{"/other", withKey}, {"/block", clean}, {"/mask", clean}} {
		rec, sent, revisions := send(c.path, c.body)
		if rec.Code != http.StatusOK || revisions != 0 {
			t.Errorf("%s: %d, %d revisions", c.path, rec.Code, revisions)
		}
		if c.body == withKey && !strings.Contains(string(sent), key) {
			t.Errorf("%s: the body was changed: %s", c.path, sent)
		}
	}
}
