package apierr

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
)

// TestAnthropicTypesListed: every type AnthropicType gives an error
// status is one of AnthropicTypes, and each of them is given.
func TestAnthropicTypesListed(t *testing.T) {
	given := map[string]bool{}
	for status := 400; status < 600; status++ {
		typ := AnthropicType(New(status, TypeProvider, "x"))
		if !slices.Contains(AnthropicTypes, typ) {
			t.Errorf("status %d: type %q is not listed", status, typ)
		}
		given[typ] = true
	}
	for _, typ := range AnthropicTypes {
		if !given[typ] {
			t.Errorf("%q is listed but never given", typ)
		}
	}
}

// TestWriteForPicksEnvelope: the /v1/messages routes answer in the
// Anthropic envelope, the others in the gateway shape.
func TestWriteForPicksEnvelope(t *testing.T) {
	for path, anthropic := range map[string]bool{
		"/v1/messages": true, "/v1/messages/count_tokens": true, "/v1/chat/completions": false, "/admin/auth-keys": false,
	} {
		if AnthropicEnvelope(path) != anthropic {
			t.Errorf("AnthropicEnvelope(%s) = %v", path, !anthropic)
		}
		rec := httptest.NewRecorder()
		WriteFor(rec, httptest.NewRequest(http.MethodPost, path, nil), Unauthorized("no key"))
		if got := rec.Body.String()[:15] == `{"type":"error"`; got != anthropic {
			t.Errorf("%s: answered %s", path, rec.Body)
		}
	}
}
