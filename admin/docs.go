package admin

import "net/http"

// opDoc describes one operation for the OpenAPI document.
type opDoc struct {
	id      string
	summary string
	tag     string
	query   []queryParam
	body    string // request body schema name, "" for none
	status  int    // success status
	result  string // success body schema name, "" for none
	errors  []int  // error statuses besides 401 and 403
}

// queryParam is one query parameter.
type queryParam struct {
	name, desc string
	schema     schema
}

var windowParams = []queryParam{
	{"start_date", "First day, YYYY-MM-DD. With end_date, wins over days.", schema{"type": "string", "format": "date"}},
	{"end_date", "Last day, YYYY-MM-DD; default today (UTC).", schema{"type": "string", "format": "date"}},
	{"days", "Window length in days ending at end_date; default 30.", schema{"type": "integer", "minimum": 1, "maximum": MaxUsageDays}},
}

var (
	docListKeys = opDoc{id: "listAuthKeys", summary: "List managed API keys", tag: "auth-keys",
		status: http.StatusOK, result: "KeyList"}
	docCreateKey = opDoc{id: "createAuthKey", summary: "Create a managed API key; the key is returned once", tag: "auth-keys",
		body: "CreateKeyRequest", status: http.StatusCreated, result: "CreatedKey", errors: []int{400, 413}}
	docGetKey = opDoc{id: "getAuthKey", summary: "Get one managed API key", tag: "auth-keys",
		status: http.StatusOK, result: "ManagedKey", errors: []int{404}}
	docUpdateKey = opDoc{id: "updateAuthKey", summary: "Change a key's name, user path, dashboard access or enabled state", tag: "auth-keys",
		body: "UpdateKeyRequest", status: http.StatusOK, result: "ManagedKey", errors: []int{400, 404, 413}}
	docDeleteKey = opDoc{id: "deleteAuthKey", summary: "Delete a managed API key", tag: "auth-keys",
		status: http.StatusNoContent, errors: []int{404}}
	docDeactivateKey = opDoc{id: "deactivateAuthKey", summary: "Deactivate a managed API key", tag: "auth-keys",
		status: http.StatusOK, result: "ManagedKey", errors: []int{404}}
	docUsageSummary = opDoc{id: "getUsageSummary", summary: "Aggregate token usage", tag: "usage",
		query: windowParams, status: http.StatusOK, result: "UsageSummary", errors: []int{400}}
	docUsageDaily = opDoc{id: "getUsageDaily", summary: "Usage per interval bucket", tag: "usage",
		query: append(append([]queryParam(nil), windowParams...), queryParam{"interval", "Bucket size; default daily.",
			schema{"type": "string", "enum": []string{"daily", "weekly", "monthly", "yearly"}}}),
		status: http.StatusOK, result: "UsagePeriods", errors: []int{400}}
	docUsageSessions = opDoc{id: "getUsageSessions", summary: "Usage per detected session", tag: "usage",
		query: append(append([]queryParam(nil), windowParams...),
			queryParam{"limit", "Page size; default 50, at most 200.", schema{"type": "integer", "minimum": 1}},
			queryParam{"cursor", "Cursor from next_cursor.", schema{"type": "string"}},
			queryParam{"user_path", "Only sessions of this user path.", schema{"type": "string"}}),
		status: http.StatusOK, result: "UsageSessions", errors: []int{400}}
	docRuntimeConfig = opDoc{id: "getRuntimeConfig", summary: "Effective feature switches, version and providers", tag: "runtime",
		status: http.StatusOK, result: "RuntimeConfig"}
	docOpenAPI = opDoc{id: "getOpenAPI", summary: "This OpenAPI document", tag: "runtime",
		status: http.StatusOK, result: "OpenAPI"}
)

// modelDocs describes the model endpoints the document knows more about
// than their method and path (proxy.Routes gives only those).
var modelDocs = map[string]opDoc{
	"/v1/chat/completions": {id: "createChatCompletion", summary: "Chat completions (streamed with stream: true)", tag: "models",
		body: "ModelRequest", status: 200, result: "ModelResponse", errors: []int{400, 404, 413, 429, 502, 504}},
	"/v1/embeddings": {id: "createEmbeddings", summary: "Embeddings", tag: "models",
		body: "ModelRequest", status: 200, result: "ModelResponse", errors: []int{400, 404, 413, 429, 502, 504}},
	"/v1/messages": {id: "createMessage", summary: "Anthropic messages (streamed with stream: true)", tag: "models",
		body: "ModelRequest", status: 200, result: "ModelResponse", errors: []int{400, 404, 413, 429, 502, 504}},
	"/v1/messages/count_tokens": {id: "countMessageTokens", summary: "Count the input tokens of a messages request (not rate-limited)", tag: "models",
		body: "ModelRequest", status: 200, result: "ModelResponse", errors: []int{400, 404, 413}},
	"/v1/responses": {id: "createResponse", summary: "Responses (streamed with stream: true)", tag: "models",
		body: "ModelRequest", status: 200, result: "ModelResponse", errors: []int{400, 404, 413, 429, 502, 504}},
	"/v1/models": {id: "listModels", summary: "Models of every provider", tag: "models", status: 200, result: "ModelList"},
	"/v1/usage": {id: "getSelfUsage", summary: "The caller's user path, usage, budgets and rate limits", tag: "models",
		status: 200, result: "SelfUsage", errors: []int{400}},
	"/health": {id: "health", summary: "Liveness", tag: "health", status: 200, result: "Health"},
}
