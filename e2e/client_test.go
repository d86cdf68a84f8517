package e2e

// The client side of the tests: plain HTTP requests to the gateway, its
// error shape, managed keys, the official SDKs bound to it with the tool
// they offer, readers of the admin rule list and of the model listing,
// and comparisons of JSON values.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	aoption "github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// mockChat is a small chat completion request for the mock provider.
const mockChat = `{"model":"mock-chat","messages":[{"role":"user","content":"hi"}]}`

// httpClient sends the tests' plain HTTP requests; it shares
// http.DefaultTransport, so http.DefaultClient.CloseIdleConnections()
// after a reload drops its connections too.
var httpClient = &http.Client{Timeout: 20 * time.Second}

// response is one answer of the gateway.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// send sends a request; headers come in name, value pairs, and a body is
// sent as application/json. Like the official SDKs it retries, with
// exponential back-off, a request whose connection broke before any answer
// arrived: right after a reload a connection the old server accepted can be
// closed unanswered. Any HTTP answer, error or not, is returned as it is.
// It does not touch a testing.TB, so handlers and goroutines may use it.
func send(method, url, body string, headers ...string) (response, error) {
	var err error
	backoff := 100 * time.Millisecond
	for try := 0; try < 4; try++ {
		var res response
		if res, err = sendOnce(method, url, body, headers); err == nil {
			return res, nil
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			break
		}
		time.Sleep(backoff)
		backoff *= 2
	}
	return response{}, err
}

func sendOnce(method, url, body string, headers []string) (response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return response{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, fmt.Errorf("reading the body: %w", err)
	}
	return response{resp.StatusCode, resp.Header, b}, nil
}

// request is send for the test goroutine: a request that gets no answer
// fails the test.
func request(t testing.TB, method, url, body string, headers ...string) response {
	t.Helper()
	res, err := send(method, url, body, headers...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return res
}

// bearer returns the Authorization header pair for key, or no header for
// an empty key.
func bearer(key string) []string {
	if key == "" {
		return nil
	}
	return []string{"Authorization", "Bearer " + key}
}

// adminCall calls the gateway with the master key (the admin API, mostly).
func adminCall(t testing.TB, g *gateway, method, path, body string) response {
	t.Helper()
	return request(t, method, g.URL+path, body, bearer(masterKey)...)
}

// chatAs sends mockChat with the master key for userPath.
func chatAs(t testing.TB, g *gateway, userPath string) response {
	t.Helper()
	return request(t, "POST", g.URL+"/v1/chat/completions", mockChat, append(bearer(masterKey), userPathHeader, userPath)...)
}

// JSON decodes the body as an object.
func (r response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("not a JSON object (%d): %s", r.Status, r.Body)
	}
	return m
}

// Err decodes the answer as a gateway error (decodeError).
func (r response) Err(t testing.TB) gatewayError {
	t.Helper()
	return decodeError(t, r.Status, r.Body)
}

// ExpectErr checks status, type and code of an error answer.
func (r response) ExpectErr(t testing.TB, status int, typ, code string) gatewayError {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	e := r.Err(t)
	if e.Type != typ || e.Code == nil || *e.Code != code {
		t.Fatalf("error type %q code %v, want %s/%s: %s", e.Type, orNull(e.Code), typ, code, r.Body)
	}
	return e
}

// gatewayError is the gateway's error object.
type gatewayError struct {
	Type       string  `json:"type"`
	Message    string  `json:"message"`
	Code       *string `json:"code"`
	Param      *string `json:"param"`
	Provider   string  `json:"provider"`
	StatusCode int     `json:"status_code"`
}

// decodeError checks that body is exactly the gateway error shape
// {"error":{type,message,code,param,provider,status_code}}, with a message
// and the HTTP status as status_code, and returns it.
func decodeError(t testing.TB, status int, body []byte) gatewayError {
	t.Helper()
	var raw map[string]map[string]json.RawMessage
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatalf("error body is not {\"error\":{...}} (%d): %v\n%s", status, err, body)
	}
	if len(raw) != 1 || raw["error"] == nil {
		t.Fatalf("error body must have exactly the key \"error\" (%d): %s", status, body)
	}
	for _, k := range []string{"type", "message", "code", "param", "provider", "status_code"} {
		if _, ok := raw["error"][k]; !ok {
			t.Errorf("error body lacks error.%s: %s", k, body)
		}
	}
	var e struct {
		Error gatewayError `json:"error"`
	}
	if err := json.Unmarshal(body, &e); err != nil {
		t.Fatalf("error body: %v\n%s", err, body)
	}
	if e.Error.StatusCode != status {
		t.Fatalf("error.status_code = %d in a %d answer: %s", e.Error.StatusCode, status, body)
	}
	if e.Error.Message == "" {
		t.Errorf("error.message is empty: %s", body)
	}
	return e.Error
}

// orNull is *p, or "<null>" for nil.
func orNull(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

// managedKey is a managed key created through the admin API.
type managedKey struct {
	ID     string
	Secret string
	View   map[string]any
}

// createKey creates a managed key with the given JSON body and checks the
// key's format.
func createKey(t testing.TB, g *gateway, body string) managedKey {
	t.Helper()
	res := adminCall(t, g, "POST", "/admin/auth-keys", body)
	if res.Status != http.StatusCreated {
		t.Fatalf("creating a key: %d %s", res.Status, res.Body)
	}
	m := res.JSON(t)
	k := managedKey{ID: m["id"].(string), Secret: m["key"].(string), View: m}
	if !strings.HasPrefix(k.Secret, "sk_mg_") || len(k.Secret) != 38 {
		t.Fatalf("key %q has the wrong format", k.Secret)
	}
	return k
}

// openaiClient returns the official OpenAI client pointed at the gateway,
// with retries off so that every error surfaces as the gateway sent it.
func openaiClient(g *gateway, key string, extra ...option.RequestOption) openai.Client {
	opts := []option.RequestOption{
		option.WithBaseURL(g.URL + "/v1/"),
		option.WithAPIKey(key),
		option.WithMaxRetries(0),
		option.WithRequestTimeout(20 * time.Second),
	}
	return openai.NewClient(append(opts, extra...)...)
}

// anthropicClient returns the official Anthropic client pointed at the
// gateway, retries off, sending key as x-api-key.
func anthropicClient(g *gateway, key string) anthropic.Client {
	return anthropic.NewClient(
		aoption.WithBaseURL(g.URL+"/"),
		aoption.WithAPIKey(key),
		aoption.WithMaxRetries(0),
		aoption.WithRequestTimeout(20*time.Second),
	)
}

// accumulateMessage reads an Anthropic SDK stream to its end and returns
// the message its events accumulate to and the event types in order; an
// event that does not accumulate or a stream error fails the test.
func accumulateMessage(t testing.TB, stream *ssestream.Stream[anthropic.MessageStreamEventUnion]) (anthropic.Message, []string) {
	t.Helper()
	var m anthropic.Message
	var types []string
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		if err := m.Accumulate(ev); err != nil {
			t.Fatalf("accumulate %s: %v", ev.Type, err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatalf("stream error: %v", err)
	}
	_ = stream.Close()
	return m, types
}

// weatherTool is the function tool the chat tests offer.
var weatherTool = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
	Name:        "get_weather",
	Description: openai.String("Current weather for a location"),
	Parameters: shared.FunctionParameters{
		"type":       "object",
		"properties": map[string]any{"location": map[string]any{"type": "string"}},
		"required":   []string{"location"},
	},
})

// anthropicWeatherTool is the client tool the /v1/messages tests offer.
var anthropicWeatherTool = anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
	Name:        "get_weather",
	Description: anthropic.String("Current weather for a location"),
	InputSchema: anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"location": map[string]any{"type": "string"}},
		Required:   []string{"location"},
	},
}}

// responsesWeatherTool is the function tool the Responses tests offer.
var responsesWeatherTool = responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
	Name:        "get_weather",
	Description: openai.String("Current weather for a location"),
	Strict:      openai.Bool(true),
	Parameters: map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"location": map[string]any{"type": "string"}},
		"required":             []string{"location"},
		"additionalProperties": false,
	},
}}

// rateRule finds one rule of GET /admin/rate-limits; period is the named
// period or, for custom windows, the length as "600s".
func rateRule(t testing.TB, g *gateway, scope, subject, period string) map[string]any {
	t.Helper()
	res := adminCall(t, g, "GET", "/admin/rate-limits", "")
	if res.Status != 200 {
		t.Fatalf("listing rate limits: %d %s", res.Status, res.Body)
	}
	for _, v := range res.JSON(t)["rules"].([]any) {
		r := v.(map[string]any)
		p, _ := r["period"].(string)
		if p == "" {
			p = fmt.Sprintf("%.0fs", r["period_seconds"])
		}
		if r["scope"] == scope && r["subject"] == subject && p == period {
			return r
		}
	}
	t.Fatalf("no %s rule on %s per %s in %s", scope, subject, period, res.Body)
	return nil
}

// rateUsed is the requests_used of one rule (rateRule).
func rateUsed(t testing.TB, g *gateway, scope, subject, period string) float64 {
	t.Helper()
	v, _ := rateRule(t, g, scope, subject, period)["requests_used"].(float64)
	return v
}

// waitSlotsFree waits up to 5 s until no rule reports anything in flight.
func waitSlotsFree(t testing.TB, g *gateway) {
	t.Helper()
	busy := ""
	defer func() {
		if t.Failed() && busy != "" {
			t.Logf("slots still held:%s", busy)
		}
	}()
	poll(t, 5*time.Second, "every rate-limit slot free", func() bool {
		res := adminCall(t, g, "GET", "/admin/rate-limits", "")
		busy = ""
		for _, v := range res.JSON(t)["rules"].([]any) {
			r := v.(map[string]any)
			if n, _ := r["in_flight"].(float64); n != 0 {
				busy += fmt.Sprintf(" %v %v: %v;", r["scope"], r["subject"], n)
			}
		}
		return busy == ""
	})
}

// listedModel is one entry of GET /v1/models.
type listedModel struct {
	ID      string `json:"id"`
	OwnedBy string `json:"owned_by"`
}

// parseListing decodes a GET /v1/models body.
func parseListing(body []byte) ([]listedModel, error) {
	var l struct {
		Data []listedModel `json:"data"`
	}
	err := json.Unmarshal(body, &l)
	return l.Data, err
}

// listModels returns the entries of GET /v1/models, asked with key.
func listModels(t testing.TB, g *gateway, key string) []listedModel {
	t.Helper()
	res := request(t, "GET", g.URL+"/v1/models", "", bearer(key)...)
	if res.Status != 200 {
		t.Fatalf("GET /v1/models: %d %s", res.Status, res.Body)
	}
	ms, err := parseListing(res.Body)
	if err != nil {
		t.Fatalf("listing: %v\n%s", err, res.Body)
	}
	return ms
}

// owners maps each listed id to its owner.
func owners(ms []listedModel) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		out[m.ID] = m.OwnedBy
	}
	return out
}

// listedBy returns the sorted ids GET /v1/models lists for owner.
func listedBy(t testing.TB, g *gateway, owner string) []string {
	t.Helper()
	var ids []string
	for _, m := range listModels(t, g, masterKey) {
		if m.OwnedBy == owner {
			ids = append(ids, m.ID)
		}
	}
	sort.Strings(ids)
	return ids
}

// listingHas reports whether a GET /v1/models body lists id.
func listingHas(body []byte, id string) bool {
	ms, err := parseListing(body)
	if err != nil {
		return false
	}
	_, ok := owners(ms)[id]
	return ok
}

// waitListed waits up to 5 s until GET /v1/models, asked with key, lists
// every one of ids.
func waitListed(t testing.TB, g *gateway, key string, ids ...string) {
	t.Helper()
	var res response
	missing := ""
	defer func() {
		if t.Failed() {
			t.Logf("last listing, %s missing: %d %s", missing, res.Status, res.Body)
		}
	}()
	poll(t, 5*time.Second, strings.Join(ids, ", ")+" listed", func() bool {
		res = request(t, "GET", g.URL+"/v1/models", "", bearer(key)...)
		missing = ""
		for _, id := range ids {
			if !listingHas(res.Body, id) {
				missing = id
			}
		}
		return res.Status == 200 && missing == ""
	})
}

// jsonEqual reports whether two JSON texts are equal as values.
func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// jsonAt returns the value at a dotted path of a decoded JSON value
// ("messages.0.content"), nil when absent.
func jsonAt(v any, path string) any {
	for _, p := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// containsAll fails unless s contains every one of subs.
func containsAll(t testing.TB, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q: %s", what, sub, s)
		}
	}
}
