package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
)

// TestModelsGet: GET /v1/models/{id}, through the official SDK's
// Models.Get, answers the listing's object for the id, slashed ids
// included (groq's own openai/gpt-oss-20b, and provider/model); an id no
// provider lists gets 404 model_not_found in the gateway shape; the route
// needs a key like the listing.
func TestModelsGet(t *testing.T) {
	g, _ := startReplayGateway(t)
	client := openaiClient(g, masterKey)
	waitListed(t, g, masterKey, "gpt-4o-mini", "openai/gpt-oss-20b", "gemini-2.5-flash")

	listed := map[string]map[string]any{}
	var list struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(request(t, "GET", g.URL+"/v1/models", "", bearer(masterKey)...).Body, &list); err != nil {
		t.Fatal(err)
	}
	for _, m := range list.Data {
		listed[m["id"].(string)] = m
	}

	for _, c := range []struct{ id, wantID, owner string }{
		{"gpt-4o-mini", "gpt-4o-mini", "openai"},
		{"openai/gpt-oss-20b", "openai/gpt-oss-20b", "groq"},
		{"groq/compound", "groq/compound", "groq"},
		{"gemini-2.5-flash", "gemini-2.5-flash", "gemini"},
		// provider/model finds a model listed without the prefix.
		{"groq/openai/gpt-oss-20b", "openai/gpt-oss-20b", "groq"},
		{"openai/gpt-4o-mini", "gpt-4o-mini", "openai"},
	} {
		m, err := client.Models.Get(context.Background(), c.id)
		if err != nil {
			t.Errorf("Models.Get(%q): %v", c.id, err)
			continue
		}
		if m.ID != c.wantID || m.OwnedBy != c.owner || m.Object != "model" {
			t.Errorf("Models.Get(%q) = id %q owned by %q object %q", c.id, m.ID, m.OwnedBy, m.Object)
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(m.RawJSON()), &got); err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(listed[c.wantID])
		if have, _ := json.Marshal(got); string(have) != string(want) {
			t.Errorf("Models.Get(%q) = %s, the listing has %s", c.id, have, want)
		}
	}

	// Raw requests: an escaped slash and a trailing slash work too.
	for _, p := range []string{"/v1/models/openai%2Fgpt-oss-20b", "/v1/models/gpt-4o-mini/"} {
		if res := request(t, "GET", g.URL+p, "", bearer(masterKey)...); res.Status != http.StatusOK {
			t.Errorf("GET %s: %d %s", p, res.Status, res.Body)
		}
	}

	_, err := client.Models.Get(context.Background(), "no-such-model")
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown model: %v", err)
	}
	for _, p := range []string{"/v1/models/no-such-model", "/v1/models/groq/no-such-model", "/v1/models/nope/gpt-4o-mini"} {
		request(t, "GET", g.URL+p, "", bearer(masterKey)...).ExpectErr(t, 404, "not_found_error", "model_not_found")
	}

	request(t, "GET", g.URL+"/v1/models/gpt-4o-mini", "").ExpectErr(t, 401, "authentication_error", "missing_api_key")
	res := request(t, "POST", g.URL+"/v1/models/gpt-4o-mini", "{}", bearer(masterKey)...)
	res.ExpectErr(t, 405, "invalid_request_error", "method_not_allowed")
}

// TestInventoryCategoryOnMock: the inventory's category filter finds the
// mock provider's models by their catalog categories.
func TestInventoryCategoryOnMock(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock(""))
	waitListed(t, g, masterKey, "mock-transcribe") // the inventory is [] until the listing arrives
	poll(t, 5*time.Second, "the inventory lists mock-transcribe", func() bool {
		return strings.Contains(string(adminCall(t, g, "GET", "/admin/models", "").Body), `"id":"mock-transcribe"`)
	})
	ids := func(category string) string {
		t.Helper()
		var rows []struct {
			Model struct {
				ID string `json:"id"`
			} `json:"model"`
		}
		res := adminCall(t, g, "GET", "/admin/models?category="+category, "")
		if err := json.Unmarshal(res.Body, &rows); res.Status != 200 || err != nil {
			t.Fatalf("%s: %d %v %s", category, res.Status, err, res.Body)
		}
		var out []string
		for _, r := range rows {
			out = append(out, r.Model.ID)
		}
		sort.Strings(out)
		return strings.Join(out, ",")
	}
	for category, want := range map[string]string{
		"text_generation": "mock-chat,mock-reasoner",
		"embedding":       "mock-embedding",
		"audio":           "mock-transcribe,mock-tts",
		"video":           "",
	} {
		if got := ids(category); got != want {
			t.Errorf("category %s: %s, want %s", category, got, want)
		}
	}
}
