package e2e

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/anthropics/anthropic-sdk-go"
)

// TestAnthropicSDKListsModels: the Anthropic SDK's models.list pages
// through the gateway's models in Anthropic's shape, models.get finds one,
// and an unknown id is its SDK's not-found error; an OpenAI-style client
// still gets the OpenAI list.
func TestAnthropicSDKListsModels(t *testing.T) {
	g := startGateway(t, "master_key "+masterKey+"\nprovider demo {\n type mock\n}")
	waitProvidersListed(t)
	c := anthropicClient(g, masterKey)
	ctx := context.Background()
	openaiList := request(t, "GET", g.URL+"/v1/models", "", bearer(masterKey)...).JSON(t)
	all, _ := openaiList["data"].([]any)
	if openaiList["object"] != "list" || len(all) < 3 {
		t.Fatalf("OpenAI-style list: %v", openaiList)
	}
	var ids []string
	pager := c.Models.ListAutoPaging(ctx, anthropic.ModelListParams{Limit: anthropic.Int(2)})
	for pager.Next() {
		m := pager.Current()
		if m.Type != "model" || m.ID == "" || m.DisplayName == "" || m.CreatedAt.IsZero() {
			t.Fatalf("model %+v", m)
		}
		ids = append(ids, m.ID)
	}
	if err := pager.Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != len(all) {
		t.Fatalf("paged %d models (%v), the list has %d", len(ids), ids, len(all))
	}
	for i, o := range all {
		if id := o.(map[string]any)["id"]; id != ids[i] {
			t.Fatalf("model %d: paged %q, listed %v", i, ids[i], id)
		}
	}
	got, err := c.Models.Get(ctx, ids[1], anthropic.ModelGetParams{})
	if err != nil || got.ID != ids[1] || got.Type != "model" {
		t.Fatalf("get %q: %+v %v", ids[1], got, err)
	}
	_, err = c.Models.Get(ctx, "no-such-model", anthropic.ModelGetParams{})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown model: %v", err)
	}
}
