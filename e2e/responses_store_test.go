package e2e

import (
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/testkit/fixtures"
	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// TestStoredResponsesEmbedded: stored responses on the embedded store,
// through the official SDK's own methods (storedResponses).
func TestStoredResponsesEmbedded(t *testing.T) {
	clearEnv(t)
	storedResponses(t, "")
}

// TestStoredResponsesPostgres: the same on PostgreSQL (storage postgres).
func TestStoredResponsesPostgres(t *testing.T) {
	clearEnv(t)
	storedResponses(t, "storage postgres "+pgtest.NewDatabase(t))
}

// storedResponses runs the stored-response scenarios on a gateway with
// the mock (answered through translation), a groq replay (chat
// completions only) and an openai replay (native Responses), for two
// managed keys on different user paths:
//
//   - a response, whole or streamed, is read back with Responses.Get
//     (the stream as its final object), its input items paged with
//     InputItems.List (after, limit, order), and deleted with
//     Responses.Delete, after which it is 404;
//   - store: false keeps nothing (404);
//   - every id of one user path is 404 for the other, on every route, and
//     as previous_response_id (400 previous_response_not_found);
//   - previous_response_id onto the chat-only groq replay sends it the
//     rebuilt conversation;
//   - a native openai response (whole or streamed) is kept by the
//     provider: Get, input_items and Delete are relayed there, for its
//     own user path only;
//   - everything survives a restart (on PostgreSQL, onto a fresh local
//     file).
func storedResponses(t *testing.T, storage string) {
	groq, oai := newReplay(t, "groq"), newReplay(t, "openai")
	serveResponses(oai)
	nativeID := gjson.GetBytes(mustFixture(t, "openai", "responses.json"), "id").Str
	relayed := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodDelete:
			_, _ = w.Write([]byte(`{"id":"` + nativeID + `","object":"response.deleted","deleted":true}`))
		default:
			_, _ = w.Write(mustFixture(t, "openai", "responses.json"))
		}
	}
	oai.Handle("/v1/responses/"+nativeID, relayed)
	oai.Handle("/v1/responses/"+nativeID+"/input_items", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"object":"list","data":[{"id":"msg_up","type":"message","role":"user","content":[{"type":"input_text","text":"Say hello world"}]}],"first_id":"msg_up","last_id":"msg_up","has_more":false}`))
	})
	dir := t.TempDir()
	block := func(file string) string {
		return mockBlock(providerBlock("groq", "groq", "gsk-test", groq.BaseURL()) + "\n" +
			providerBlock("oai", "openai", "sk-test", oai.BaseURL()) + "\nstorage " + filepath.Join(dir, file) + "\n" + storage)
	}
	g := startGateway(t, block("first.db"))
	ka := createKey(t, g, `{"name":"a","user_path":"/team/a"}`)
	kb := createKey(t, g, `{"name":"b","user_path":"/team/b"}`)
	a, b := openaiClient(g, ka.Secret), openaiClient(g, kb.Secret)
	ctx := context.Background()

	// Whole: stored under an unguessable id, read back as it was answered.
	r1, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "mock-chat",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hello there")}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r1.ID, "resp_") || len(r1.ID) != len("resp_")+48 || !gjson.Get(r1.RawJSON(), "store").Bool() {
		t.Fatalf("created %s: %s", r1.ID, r1.RawJSON())
	}
	got, err := a.Responses.Get(ctx, r1.ID, responses.ResponseGetParams{})
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.ID != r1.ID || got.OutputText() != r1.OutputText() || got.OutputText() == "" {
		t.Fatalf("Get: %s %q, want %q", got.ID, got.OutputText(), r1.OutputText())
	}

	// Streamed: stored as its final object.
	stream := a.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "mock-chat",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("stream this please")}})
	var final responses.Response
	for stream.Next() {
		if ev := stream.Current(); ev.Type == "response.completed" {
			final = ev.Response
		}
	}
	if err := stream.Err(); err != nil || final.ID == "" {
		t.Fatalf("stream: %v, final %q", err, final.ID)
	}
	got, err = a.Responses.Get(ctx, final.ID, responses.ResponseGetParams{})
	if err != nil || got.OutputText() != final.OutputText() || got.Status != "completed" {
		t.Fatalf("Get of a streamed response: %v %q, want %q", err, got.OutputText(), final.OutputText())
	}

	// Input items, paged both ways.
	var input responses.ResponseInputParam
	for _, s := range []string{"one", "two", "three", "four", "five"} {
		input = append(input, responses.ResponseInputItemParamOfMessage(s, responses.EasyInputMessageRoleUser))
	}
	r5, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "mock-chat",
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	after := ""
	for pages := 0; ; pages++ {
		q := responses.InputItemListParams{Limit: openai.Int(2), Order: responses.InputItemListParamsOrderAsc}
		if after != "" {
			q.After = openai.String(after)
		}
		page, err := a.Responses.InputItems.List(ctx, r5.ID, q)
		if err != nil {
			t.Fatalf("InputItems.List: %v", err)
		}
		for _, it := range page.Data {
			texts = append(texts, it.Content.OfInputItemContentList[0].Text)
			after = it.ID
		}
		if !page.HasMore {
			break
		}
		if pages > 5 {
			t.Fatal("paging does not end")
		}
	}
	if strings.Join(texts, ",") != "one,two,three,four,five" {
		t.Fatalf("asc pages: %v", texts)
	}
	desc, err := a.Responses.InputItems.List(ctx, r5.ID, responses.InputItemListParams{Limit: openai.Int(2)})
	if err != nil || len(desc.Data) != 2 || !desc.HasMore || desc.Data[0].Content.OfInputItemContentList[0].Text != "five" {
		t.Fatalf("desc page: %v %+v", err, desc)
	}

	// Another user path sees none of it, on any route.
	notFound := func(what string, err error) {
		t.Helper()
		var e *openai.Error
		if !errors.As(err, &e) || e.StatusCode != http.StatusNotFound {
			t.Fatalf("%s: %v, want 404", what, err)
		}
	}
	_, err = b.Responses.Get(ctx, r1.ID, responses.ResponseGetParams{})
	notFound("Get of another path's id", err)
	_, err = b.Responses.InputItems.List(ctx, r5.ID, responses.InputItemListParams{})
	notFound("InputItems.List of another path's id", err)
	notFound("Delete of another path's id", b.Responses.Delete(ctx, r1.ID))
	_, err = b.Responses.New(ctx, responses.ResponseNewParams{Model: "mock-chat", PreviousResponseID: openai.String(r1.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("steal")}})
	var pe *openai.Error
	if !errors.As(err, &pe) || pe.StatusCode != 400 || pe.Code != "previous_response_not_found" {
		t.Fatalf("previous_response_id of another path: %v", err)
	}

	// store: false keeps nothing.
	unstored, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "mock-chat", Store: openai.Bool(false),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("forget me")}})
	if err != nil || gjson.Get(unstored.RawJSON(), "store").Type != gjson.False {
		t.Fatalf("store false: %v", err)
	}
	_, err = a.Responses.Get(ctx, unstored.ID, responses.ResponseGetParams{})
	notFound("Get of an unstored response", err)

	// Delete, then 404.
	if err := a.Responses.Delete(ctx, r5.ID); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	_, err = a.Responses.Get(ctx, r5.ID, responses.ResponseGetParams{})
	notFound("Get after Delete", err)
	notFound("Delete after Delete", a.Responses.Delete(ctx, r5.ID))

	// previous_response_id onto a chat-completions provider: the upstream
	// gets the whole conversation.
	first, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "groq/llama-3.3-70b-versatile",
		Instructions: openai.String("Be brief."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String("My name is Ann.")}})
	if err != nil {
		t.Fatal(err)
	}
	second, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "groq/llama-3.3-70b-versatile",
		PreviousResponseID: openai.String(first.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfString: openai.String("What is my name?")}})
	if err != nil {
		t.Fatalf("previous_response_id onto groq: %v", err)
	}
	if second.PreviousResponseID != first.ID {
		t.Fatalf("previous_response_id echoed %q, want %q", second.PreviousResponseID, first.ID)
	}
	var roles, contents []string
	for _, m := range groq.Last(t, "/v1/chat/completions").JSON(t)["messages"].([]any) {
		mm := m.(map[string]any)
		roles = append(roles, mm["role"].(string))
		c, _ := mm["content"].(string)
		if parts, ok := mm["content"].([]any); ok {
			for _, p := range parts {
				c += p.(map[string]any)["text"].(string)
			}
		}
		contents = append(contents, c)
	}
	if strings.Join(roles, ",") != "user,assistant,user" || contents[0] != "My name is Ann." ||
		contents[1] != first.OutputText() || contents[2] != "What is my name?" {
		t.Fatalf("the upstream got roles %v, contents %q", roles, contents)
	}
	// A chain continues further, and the third turn sees all of it.
	if _, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "mock-chat",
		PreviousResponseID: openai.String(second.ID),
		Input:              responses.ResponseNewParamsInputUnion{OfString: openai.String("And again?")}}); err != nil {
		t.Fatalf("a chain of two onto the mock: %v", err)
	}

	// Native: the openai provider keeps it; the gateway relays, for the
	// owner only.
	nat, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "oai/gpt-4o-mini",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello world")}})
	if err != nil || nat.ID != nativeID {
		t.Fatalf("native: %v %q", err, nat.ID)
	}
	if got, err := a.Responses.Get(ctx, nativeID, responses.ResponseGetParams{}); err != nil || got.ID != nativeID {
		t.Fatalf("native Get: %v", err)
	}
	if items, err := a.Responses.InputItems.List(ctx, nativeID, responses.InputItemListParams{}); err != nil ||
		len(items.Data) != 1 || items.Data[0].ID != "msg_up" {
		t.Fatalf("native input items: %v", err)
	}
	calls := len(oai.Requests("/v1/responses/" + nativeID))
	_, err = b.Responses.Get(ctx, nativeID, responses.ResponseGetParams{})
	notFound("native Get of another path", err)
	if n := len(oai.Requests("/v1/responses/" + nativeID)); n != calls {
		t.Fatal("another path's read reached the provider")
	}
	if err := a.Responses.Delete(ctx, nativeID); err != nil {
		t.Fatalf("native Delete: %v", err)
	}
	if r := oai.Last(t, "/v1/responses/"+nativeID); r.Method != http.MethodDelete || r.Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("native Delete reached the provider as %s with %q", r.Method, r.Header.Get("Authorization"))
	}
	_, err = a.Responses.Get(ctx, nativeID, responses.ResponseGetParams{})
	notFound("native Get after Delete", err)
	// A native stream is recorded from its response.created event.
	nstream := a.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: "oai/gpt-4o-mini",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Say hello world")}})
	streamedID := ""
	for nstream.Next() {
		if ev := nstream.Current(); ev.Type == "response.created" {
			streamedID = ev.Response.ID
		}
	}
	if err := nstream.Err(); err != nil || streamedID == "" {
		t.Fatalf("native stream: %v %q", err, streamedID)
	}
	oai.Handle("/v1/responses/"+streamedID, relayed)
	if _, err := a.Responses.Get(ctx, streamedID, responses.ResponseGetParams{}); err != nil {
		t.Fatalf("native Get of a streamed response: %v", err)
	}
	if r := oai.Last(t, "/v1/responses/"+streamedID); r.Method != http.MethodGet {
		t.Fatalf("the streamed native response was not read from the provider: %s", r.Method)
	}
	_, err = b.Responses.Get(ctx, streamedID, responses.ResponseGetParams{})
	notFound("native Get of another path's streamed response", err)

	// The store outlives the process (on PostgreSQL, a fresh local file
	// proves it came from there): the queued writes were committed.
	file := "first.db"
	if storage != "" {
		file = "second.db"
	}
	g = restartGateway(t, block(file))
	a, b = openaiClient(g, ka.Secret), openaiClient(g, kb.Secret)
	for _, id := range []string{r1.ID, final.ID, second.ID} {
		if got, err := a.Responses.Get(ctx, id, responses.ResponseGetParams{}); err != nil || got.ID != id {
			t.Fatalf("after the restart, Get %s: %v", id, err)
		}
	}
	_, err = b.Responses.Get(ctx, r1.ID, responses.ResponseGetParams{})
	notFound("after the restart, another path's id", err)
	if _, err := a.Responses.New(ctx, responses.ResponseNewParams{Model: "mock-chat", PreviousResponseID: openai.String(second.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Still there?")}}); err != nil {
		t.Fatalf("after the restart, continuing a chain: %v", err)
	}
}

// mustFixture reads a provider fixture.
func mustFixture(t *testing.T, family, name string) []byte {
	t.Helper()
	b, err := fixtures.Read(family, name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
