package routes

import "net/http"

// modelErrors are the error statuses of a model call that reaches a
// provider; 403 refuses a model the caller may not use and a call from
// another site's page, 415 a body of another media type.
var modelErrors = []int{400, 403, 404, 413, 415, 429, 502, 504}

// usageWindow are the query parameters choosing a usage time window.
var usageWindow = []Param{
	{Name: "start_date", Desc: "First day, YYYY-MM-DD. With end_date, wins over days.", Type: "string", Format: "date"},
	{Name: "end_date", Desc: "Last day, YYYY-MM-DD; default today (UTC).", Type: "string", Format: "date"},
	{Name: "days", Desc: "Window length in days ending today (or at end_date); default 30. Explicit dates win.", Type: "integer", Min: 1, Max: maxUsageDays},
}

// usageFilters are the query parameters narrowing usage reads.
var usageFilters = []Param{
	{Name: "user_path", Desc: "Only this user path and the paths below it.", Type: "string"},
	{Name: "key_id", Desc: "Only requests made with this managed key.", Type: "string"},
	{Name: "model", Desc: "Only this model (exact).", Type: "string"},
	{Name: "provider", Desc: "Only this provider instance (exact).", Type: "string"},
}

// maxUsageDays is the largest days parameter of the usage and audit-stats
// routes (the admin package checks it against its own bound).
const maxUsageDays = 366

// auditFilters are the query parameters of the audit log list.
var auditFilters = []Param{
	{Name: "limit", Desc: "Page size; default 50, at most 200.", Type: "integer", Min: 1},
	{Name: "offset", Desc: "Matches to skip; default 0.", Type: "integer"},
	{Name: "search", Desc: "Text searched, ignoring case, in ids, method, path, user path, models, providers, errors, key id, client address and user agent (not bodies).", Type: "string"},
	{Name: "model", Desc: "Requested or resolved model.", Type: "string"},
	{Name: "model_contains", Desc: "Requested or resolved model containing this text, ignoring case.", Type: "string"},
	{Name: "provider", Desc: "Provider instance name or provider type.", Type: "string"},
	{Name: "key_id", Desc: "Managed key id.", Type: "string"},
	{Name: "error_code", Desc: "Gateway error code, such as rate_limit_exceeded.", Type: "string"},
	{Name: "user_path", Desc: "This user path exactly.", Type: "string"},
	{Name: "user_path_under", Desc: "This user path and the paths below it.", Type: "string"},
	{Name: "session_id", Desc: "Detected session id.", Type: "string"},
	{Name: "status", Desc: "A status code (404), a class (4xx), or a comma-separated list of them (4xx,5xx).", Type: "string"},
	{Name: "start_date", Desc: "First day, YYYY-MM-DD (UTC).", Type: "string", Format: "date"},
	{Name: "end_date", Desc: "Last day, YYYY-MM-DD (UTC), included.", Type: "string", Format: "date"},
	{Name: "days", Desc: "Only the last days days, today included (or the days up to end_date). Explicit dates win.", Type: "integer", Min: 1, Max: maxUsageDays},
}

// withWindow returns the usage window parameters followed by more.
func withWindow(more ...Param) []Param {
	return append(append([]Param(nil), usageWindow...), more...)
}

// adminRoute returns an admin API operation: it needs admin access, is
// neither rate-limited nor audited, and is served.
func adminRoute(id, method, path string, doc *Doc) Route {
	return Route{ID: id, Method: method, Path: path, Shape: ShapeAdmin, Credential: CredentialAdmin, Served: true, Doc: doc}
}

// dashboardRoute returns a dashboard page or asset: public and served.
func dashboardRoute(id, path, summary, mediaType string) Route {
	return Route{ID: id, Method: http.MethodGet, Path: path, Shape: ShapeDashboard, Credential: CredentialNone, Served: true,
		Doc: &Doc{Summary: summary, Tag: "dashboard", Status: http.StatusOK, ResultType: mediaType}}
}

// table is every route of the gateway. Rules it follows:
//
//   - Audited: every /v1/* model endpoint but the model listing and
//     retrieval (/v1/models, /v1/models/{id}) and /v1/usage, passthrough,
//     realtime sessions and batch calls; never /health or /admin/*.
//   - Rate limits count the calls that run a model (with a slot), batch
//     submission (without one); never listings, /v1/usage, token counts,
//     file uploads or batch status and cancel.
//   - Routes that are not served yet keep their attributes, so the stages
//     in front of the proxy treat them as they will once a handler exists.
var table = []Route{
	// Model endpoints.
	{ID: "createChatCompletion", Method: http.MethodPost, Path: "/v1/chat/completions", Shape: ShapeChat,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Cacheable: true, Served: true,
		Doc: &Doc{Summary: "Chat completions (streamed with stream: true)", Tag: "models", Body: "ModelRequest",
			Status: http.StatusOK, Result: "ModelResponse", Streams: true, Errors: modelErrors, PassesUpstream: true}},
	{ID: "createResponse", Method: http.MethodPost, Path: "/v1/responses", Shape: ShapeResponses,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Cacheable: true, Served: true,
		Doc: &Doc{Summary: "Responses (streamed with stream: true)", Tag: "models", Body: "ModelRequest",
			Status: http.StatusOK, Result: "ModelResponse", Streams: true, Errors: modelErrors, PassesUpstream: true}},
	{ID: "createMessage", Method: http.MethodPost, Path: "/v1/messages", Shape: ShapeMessages,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Cacheable: true, Served: true,
		Doc: &Doc{Summary: "Anthropic messages (streamed with stream: true)", Tag: "models", Body: "ModelRequest",
			Status: http.StatusOK, Result: "ModelResponse", Streams: true, Errors: modelErrors, PassesUpstream: true}},
	// A token count runs no model: not rate-limited, not budgeted.
	{ID: "countMessageTokens", Method: http.MethodPost, Path: "/v1/messages/count_tokens", Shape: ShapeCountTokens,
		Audited: true, Served: true,
		Doc: &Doc{Summary: "Count the input tokens of a messages request (not rate-limited)", Tag: "models", Body: "ModelRequest",
			Status: http.StatusOK, Result: "ModelResponse", Errors: []int{400, 403, 404, 413, 415}, PassesUpstream: true}},
	{ID: "createEmbeddings", Method: http.MethodPost, Path: "/v1/embeddings", Shape: ShapeEmbeddings,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Cacheable: true, Served: true,
		Doc: &Doc{Summary: "Embeddings", Tag: "models", Body: "ModelRequest",
			Status: http.StatusOK, Result: "ModelResponse", Errors: modelErrors, PassesUpstream: true}},
	{ID: "createSpeech", Method: http.MethodPost, Path: "/v1/audio/speech", Shape: ShapeSpeech,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Served: true,
		Doc: &Doc{Summary: "Text to speech (audio of the upstream's type, e.g. audio/mpeg; events with stream_format: sse)", Tag: "audio",
			Body: "ModelRequest", Status: http.StatusOK, ResultType: "audio/*", Streams: true, Errors: modelErrors, PassesUpstream: true}},
	{ID: "createTranscription", Method: http.MethodPost, Path: "/v1/audio/transcriptions", Shape: ShapeTranscription,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Served: true,
		Doc: &Doc{Summary: "Speech to text (text for response_format text, srt or vtt; events with stream: true)", Tag: "audio",
			Body: "ModelRequest", BodyType: "multipart/form-data",
			Status: http.StatusOK, Result: "ModelResponse", AltTypes: []string{"text/*"}, Streams: true, Errors: modelErrors, PassesUpstream: true}},
	// A realtime session holds its slot for the whole session.
	{ID: "createRealtimeSession", Method: http.MethodGet, Path: "/v1/realtime", Shape: ShapeRealtime,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Served: true,
		Doc: &Doc{Summary: "Realtime session: upgrades to a WebSocket relayed to the provider (426 without the upgrade headers)", Tag: "realtime",
			Query:  []Param{{Name: "model", Desc: "The model of the session.", Type: "string"}},
			Status: http.StatusSwitchingProtocols, Errors: []int{400, 403, 404, 426, 429, 502}, PassesUpstream: true}},
	// Passthrough: every method reaches the upstream, so every one counts.
	{ID: "passthrough", Method: Any, Path: "/p/{provider}/*", Shape: ShapePassthrough,
		RateLimit: CountRequestAndSlot, Audited: true, Budgeted: true, Served: true,
		Doc: &Doc{Summary: "A provider's own API, relayed unchanged (providers enabled for passthrough only)", Tag: "passthrough",
			Status: http.StatusOK, Errors: []int{403}, Relays: true}},

	// Batches: only the submission counts against rate limits and spend.
	{ID: "createFile", Method: http.MethodPost, Path: "/v1/files", Shape: ShapeFiles, Audited: true, Served: true,
		Doc: &Doc{Summary: "Upload a batch input file", Tag: "batches", Body: "BatchFileUpload", BodyType: "multipart/form-data",
			Status: http.StatusOK, Result: "BatchFile", Errors: []int{400, 413, 415}}},
	{ID: "listFiles", Method: http.MethodGet, Path: "/v1/files", Shape: ShapeFiles, Audited: true, Served: true,
		Doc: &Doc{Summary: "The caller's files", Tag: "batches",
			Query: []Param{
				{Name: "purpose", Desc: "Only files of this purpose (batch, batch_output).", Type: "string"},
				{Name: "limit", Desc: "Page size; default 10000.", Type: "integer", Min: 1, Max: 10000},
				{Name: "order", Desc: "desc (newest first, the default) or asc.", Type: "string"},
				{Name: "after", Desc: "The last_id of the previous page.", Type: "string"},
			},
			Status: http.StatusOK, Result: "BatchFileList", Errors: []int{400}}},
	{ID: "getFile", Method: http.MethodGet, Path: "/v1/files/{id}", Shape: ShapeFiles, Audited: true, Served: true,
		Doc: &Doc{Summary: "A batch file", Tag: "batches", Status: http.StatusOK, Result: "BatchFile", Errors: []int{404}}},
	{ID: "deleteFile", Method: http.MethodDelete, Path: "/v1/files/{id}", Shape: ShapeFiles, Audited: true, Served: true,
		Doc: &Doc{Summary: "Delete a file and its content", Tag: "batches", Status: http.StatusOK, Result: "BatchFileDeleted",
			Errors: []int{404, 409}}},
	{ID: "getFileContent", Method: http.MethodGet, Path: "/v1/files/{id}/content", Shape: ShapeFiles, Audited: true, Served: true,
		Doc: &Doc{Summary: "A batch file's content", Tag: "batches", Status: http.StatusOK, ResultType: "application/jsonl", Errors: []int{404}}},
	{ID: "createBatch", Method: http.MethodPost, Path: "/v1/batches", Shape: ShapeBatch, RateLimit: CountRequest,
		Audited: true, Served: true, Budgeted: true,
		Doc: &Doc{Summary: "Submit a batch", Tag: "batches", Body: "BatchRequest", Status: http.StatusOK, Result: "Batch",
			Errors: []int{400, 404, 413, 415, 429}, PassesUpstream: true}},
	{ID: "listBatches", Method: http.MethodGet, Path: "/v1/batches", Shape: ShapeBatch, Audited: true, Served: true,
		Doc: &Doc{Summary: "The caller's batches", Tag: "batches",
			Query: []Param{
				{Name: "limit", Desc: "Page size; default 20.", Type: "integer", Min: 1, Max: 100},
				{Name: "after", Desc: "The last_id of the previous page.", Type: "string"},
			},
			Status: http.StatusOK, Result: "BatchList", Errors: []int{400}}},
	{ID: "getBatch", Method: http.MethodGet, Path: "/v1/batches/{id}", Shape: ShapeBatch, Audited: true, Served: true,
		Doc: &Doc{Summary: "A batch's status", Tag: "batches", Status: http.StatusOK, Result: "Batch", Errors: []int{404}}},
	{ID: "cancelBatch", Method: http.MethodPost, Path: "/v1/batches/{id}/cancel", Shape: ShapeBatch, Audited: true, Served: true,
		Doc: &Doc{Summary: "Cancel a batch", Tag: "batches", Status: http.StatusOK, Result: "Batch", Errors: []int{404, 409},
			PassesUpstream: true}},
	// Anthropic message batches: the same runner, store, access and
	// counting as the batches above, in Anthropic's shapes.
	{ID: "createMessageBatch", Method: http.MethodPost, Path: "/v1/messages/batches", Shape: ShapeBatch, RateLimit: CountRequest,
		Audited: true, Served: true, Budgeted: true,
		Doc: &Doc{Summary: "Submit an Anthropic message batch", Tag: "batches", Body: "MessageBatchRequest", Status: http.StatusOK,
			Result: "MessageBatch", Errors: []int{400, 413, 415, 429}, PassesUpstream: true}},
	{ID: "listMessageBatches", Method: http.MethodGet, Path: "/v1/messages/batches", Shape: ShapeBatch, Audited: true, Served: true,
		Doc: &Doc{Summary: "The caller's message batches, newest first", Tag: "batches",
			Query: []Param{
				{Name: "limit", Desc: "Page size; default 20.", Type: "integer", Min: 1, Max: 1000},
				{Name: "after_id", Desc: "The last_id of the previous page: the batches created before it.", Type: "string"},
				{Name: "before_id", Desc: "The first_id of the next page: the batches created after it.", Type: "string"},
			},
			Status: http.StatusOK, Result: "MessageBatchList", Errors: []int{400}}},
	{ID: "getMessageBatch", Method: http.MethodGet, Path: "/v1/messages/batches/{id}", Shape: ShapeBatch, Audited: true, Served: true,
		Doc: &Doc{Summary: "A message batch's status", Tag: "batches", Status: http.StatusOK, Result: "MessageBatch", Errors: []int{404}}},
	{ID: "deleteMessageBatch", Method: http.MethodDelete, Path: "/v1/messages/batches/{id}", Shape: ShapeBatch, Audited: true, Served: true,
		Doc: &Doc{Summary: "Delete an ended message batch and its results", Tag: "batches", Status: http.StatusOK,
			Result: "MessageBatchDeleted", Errors: []int{404, 409}}},
	{ID: "getMessageBatchResults", Method: http.MethodGet, Path: "/v1/messages/batches/{id}/results", Shape: ShapeBatch,
		Audited: true, Served: true,
		Doc: &Doc{Summary: "An ended message batch's results, one JSON line per request", Tag: "batches", Status: http.StatusOK,
			ResultType: "application/x-jsonl", Errors: []int{404, 409}}},
	{ID: "cancelMessageBatch", Method: http.MethodPost, Path: "/v1/messages/batches/{id}/cancel", Shape: ShapeBatch,
		Audited: true, Served: true,
		Doc: &Doc{Summary: "Cancel a message batch", Tag: "batches", Status: http.StatusOK, Result: "MessageBatch",
			Errors: []int{404, 409}, PassesUpstream: true}},

	// Stored responses: reads and deletes run no model.
	{ID: "getResponse", Method: http.MethodGet, Path: "/v1/responses/{id}", Shape: ShapeStoredResponse, Audited: true, Served: true,
		Doc: &Doc{Summary: "A stored response of the caller (relayed to its provider when that keeps it)", Tag: "models",
			Status: http.StatusOK, Result: "StoredResponse", Errors: []int{400, 404}, PassesUpstream: true}},
	{ID: "deleteResponse", Method: http.MethodDelete, Path: "/v1/responses/{id}", Shape: ShapeStoredResponse, Audited: true, Served: true,
		Doc: &Doc{Summary: "Delete a stored response of the caller", Tag: "models",
			Status: http.StatusOK, Result: "StoredResponseDeleted", Errors: []int{404}, PassesUpstream: true}},
	{ID: "listResponseInputItems", Method: http.MethodGet, Path: "/v1/responses/{id}/input_items", Shape: ShapeStoredResponse,
		Audited: true, Served: true,
		Doc: &Doc{Summary: "The input items of a stored response of the caller", Tag: "models",
			Query: []Param{
				{Name: "limit", Desc: "Page size; default 20.", Type: "integer", Min: 1, Max: 100},
				{Name: "order", Desc: "desc (the default, last item first) or asc.", Type: "string", Enum: []string{"asc", "desc"}},
				{Name: "after", Desc: "The last_id of the previous page.", Type: "string"},
			},
			Status: http.StatusOK, Result: "ResponseInputItemList", Errors: []int{400, 404}, PassesUpstream: true}},

	// The gateway's own answers.
	{ID: "listModels", Method: http.MethodGet, Path: "/v1/models", Shape: ShapeModels, Served: true,
		Doc: &Doc{Summary: "Models of every provider", Tag: "models", Status: http.StatusOK, Result: "ModelList"}},
	// A model id may contain slashes (provider/model), so the id is the
	// rest of the path.
	{ID: "getModel", Method: http.MethodGet, Path: "/v1/models/*", Shape: ShapeModels, Served: true,
		Doc: &Doc{Summary: "One model of the listing, by its id (which may contain slashes)", Tag: "models",
			Status: http.StatusOK, Result: "Model", Errors: []int{404}}},
	// Polling it consumes no rate-limit quota.
	{ID: "getSelfUsage", Method: http.MethodGet, Path: "/v1/usage", Shape: ShapeSelfUsage, Served: true,
		Doc: &Doc{Summary: "The caller's user path, usage, budgets and rate limits", Tag: "models",
			Status: http.StatusOK, Result: "SelfUsage", Errors: []int{400}}},
	{ID: "health", Method: http.MethodGet, Path: "/health", Shape: ShapeHealth, Credential: CredentialNone, Served: true,
		Doc: &Doc{Summary: "Liveness", Tag: "health", Status: http.StatusOK, Result: "Health"}},

	// Admin API.
	adminRoute("listAuthKeys", http.MethodGet, "/admin/auth-keys",
		&Doc{Summary: "List managed API keys", Tag: "auth-keys", Status: http.StatusOK, Result: "KeyList"}),
	adminRoute("createAuthKey", http.MethodPost, "/admin/auth-keys",
		&Doc{Summary: "Create a managed API key; the key is returned once", Tag: "auth-keys",
			Body: "CreateKeyRequest", Status: http.StatusCreated, Result: "CreatedKey", Errors: []int{400, 413}}),
	adminRoute("getAuthKey", http.MethodGet, "/admin/auth-keys/{id}",
		&Doc{Summary: "Get one managed API key", Tag: "auth-keys", Status: http.StatusOK, Result: "ManagedKey", Errors: []int{404}}),
	adminRoute("updateAuthKey", http.MethodPatch, "/admin/auth-keys/{id}",
		&Doc{Summary: "Change a key's name, user path, dashboard access, expiry time or enabled state", Tag: "auth-keys",
			Body: "UpdateKeyRequest", Status: http.StatusOK, Result: "ManagedKey", Errors: []int{400, 404, 409, 413}}),
	adminRoute("deleteAuthKey", http.MethodDelete, "/admin/auth-keys/{id}",
		&Doc{Summary: "Delete a managed API key", Tag: "auth-keys", Status: http.StatusNoContent, Errors: []int{404}}),
	adminRoute("deactivateAuthKey", http.MethodPost, "/admin/auth-keys/{id}/deactivate",
		&Doc{Summary: "Deactivate a managed API key", Tag: "auth-keys", Status: http.StatusOK, Result: "ManagedKey", Errors: []int{404}}),
	adminRoute("getUsageSummary", http.MethodGet, "/admin/usage/summary",
		&Doc{Summary: "Aggregate token usage", Tag: "usage", Query: withWindow(usageFilters...),
			Status: http.StatusOK, Result: "UsageSummary", Errors: []int{400}}),
	adminRoute("getUsageDaily", http.MethodGet, "/admin/usage/daily",
		&Doc{Summary: "Usage per interval bucket", Tag: "usage",
			Query: withWindow(append([]Param{{Name: "interval", Desc: "Bucket size; default daily.", Type: "string",
				Enum: []string{"daily", "weekly", "monthly", "yearly"}}}, usageFilters...)...),
			Status: http.StatusOK, Result: "UsagePeriods", Errors: []int{400}}),
	adminRoute("getUsageSessions", http.MethodGet, "/admin/usage/sessions",
		&Doc{Summary: "Usage per detected session", Tag: "usage",
			Query: withWindow(
				Param{Name: "limit", Desc: "Page size; default 50, at most 200.", Type: "integer", Min: 1},
				Param{Name: "cursor", Desc: "Cursor from next_cursor.", Type: "string"},
				Param{Name: "user_path", Desc: "Only sessions of this user path and the paths below it.", Type: "string"},
				Param{Name: "model", Desc: "Only sessions that used this model (exact).", Type: "string"}),
			Status: http.StatusOK, Result: "UsageSessions", Errors: []int{400}}),
	adminRoute("recalculateUsage", http.MethodPost, "/admin/usage/recalculate",
		&Doc{Summary: "Reprice stored usage records of a window with today's prices (provider-reported costs kept), their aggregates and budget spend, in the background", Tag: "usage",
			Body: "RecalcRequest", Status: http.StatusAccepted, Result: "RecalcJob", Errors: []int{400, 413, 503}}),
	adminRoute("getUsageRecalculation", http.MethodGet, "/admin/usage/recalculate/{id}",
		&Doc{Summary: "A usage recalculation's progress and, once done, records_changed, cost_before, cost_after and delta", Tag: "usage",
			Status: http.StatusOK, Result: "RecalcJob", Errors: []int{404, 503}}),
	adminRoute("listPricingOverrides", http.MethodGet, "/admin/pricing",
		&Doc{Summary: "Price overrides in force (config rows are read-only)", Tag: "pricing",
			Status: http.StatusOK, Result: "PricingOverrideList", Errors: []int{503}}),
	adminRoute("putPricingOverride", http.MethodPut, "/admin/pricing",
		&Doc{Summary: "Create or replace the price of a model on a provider; new requests use it at once", Tag: "pricing",
			Body: "PricingWrite", Status: http.StatusOK, Result: "PricingOverride", Errors: []int{400, 409, 413, 503}}),
	adminRoute("deletePricingOverride", http.MethodDelete, "/admin/pricing",
		&Doc{Summary: "Delete the price override of a model on a provider", Tag: "pricing",
			Body: "PricingKey", Status: http.StatusNoContent, Errors: []int{400, 404, 409, 413, 503}}),
	adminRoute("getUsageBreakdown", http.MethodGet, "/admin/usage/breakdown",
		&Doc{Summary: "Who spent what: the window's usage grouped by user path, key, model, provider or endpoint, largest cost first", Tag: "usage",
			Query: withWindow(append([]Param{
				{Name: "by", Desc: "What to group by (required).", Type: "string",
					Enum: []string{"user_path", "key", "model", "provider", "endpoint"}},
				{Name: "depth", Desc: "With by=user_path: group by the first depth segments of the path.", Type: "integer", Min: 1},
				{Name: "limit", Desc: "Page size; default 100, at most 1000.", Type: "integer", Min: 1},
				{Name: "after", Desc: "Cursor from next.", Type: "string"}},
				usageFilters...)...),
			Status: http.StatusOK, Result: "UsageBreakdown", Errors: []int{400}}),
	adminRoute("listAuditLog", http.MethodGet, "/admin/audit/log",
		&Doc{Summary: "Audit log entries, newest first, filtered and paged (empty when audit logging is off)", Tag: "audit",
			Query: auditFilters, Status: http.StatusOK, Result: "AuditLogPage", Errors: []int{400}}),
	adminRoute("getAuditLogEntry", http.MethodGet, "/admin/audit/log/{id}",
		&Doc{Summary: "One audit log entry with its bodies", Tag: "audit",
			Status: http.StatusOK, Result: "AuditEntry", Errors: []int{404}}),
	adminRoute("getAuditStats", http.MethodGet, "/admin/audit/stats",
		&Doc{Summary: "Request counts by status class and provider latency per hour or day", Tag: "audit",
			Query: usageWindow, Status: http.StatusOK, Result: "AuditStats", Errors: []int{400}}),
	adminRoute("getConversation", http.MethodGet, "/admin/audit/conversation",
		&Doc{Summary: "The session thread around one audit entry, in time order", Tag: "audit",
			Query: []Param{
				{Name: "log_id", Desc: "The anchor entry's id (required).", Type: "string"},
				{Name: "limit", Desc: "Entries at most; default 40, larger values are clamped to 200.", Type: "integer", Min: 1},
				{Name: "max_bytes", Desc: "Bounds the page's request and response bodies' total size: entries are added, newest first, while their bodies fit (the first one always does). Without it the page is bounded by limit only.", Type: "integer", Min: 1},
				{Name: "before", Desc: "An entry id of the session (the first entry of the previous page, when earlier is true): the page ends just before it, and nothing after the anchor fills it.", Type: "string"},
			},
			Status: http.StatusOK, Result: "Conversation", Errors: []int{400, 404}}),
	adminRoute("streamLiveLogs", http.MethodGet, "/admin/live/logs",
		&Doc{Summary: "Live audit and usage events as server-sent events (404 unless live logs are enabled)", Tag: "audit",
			Query:  []Param{{Name: "cursor", Desc: "Sequence number of the last event seen; the Last-Event-ID header wins.", Type: "integer"}},
			Status: http.StatusOK, ResultType: "text/event-stream", Errors: []int{400, 404}}),
	adminRoute("listBudgets", http.MethodGet, "/admin/budgets",
		&Doc{Summary: "Budgets with their spend in the current period", Tag: "budgets", Status: http.StatusOK, Result: "BudgetList", Errors: []int{404}}),
	adminRoute("getBudgetSettings", http.MethodGet, "/admin/budgets/settings",
		&Doc{Summary: "Period anchors of the budgets (UTC)", Tag: "budgets", Status: http.StatusOK, Result: "BudgetSettings", Errors: []int{404}}),
	adminRoute("putBudgetSettings", http.MethodPut, "/admin/budgets/settings",
		&Doc{Summary: "Change the period anchors; the current periods move at once", Tag: "budgets",
			Body: "BudgetSettingsWrite", Status: http.StatusOK, Result: "BudgetSettings", Errors: []int{400, 404, 413}}),
	adminRoute("resetOneBudget", http.MethodPost, "/admin/budgets/reset-one",
		&Doc{Summary: "Reset one budget's spend (sets last_reset_at); a direct child path of a per_child template of that period resets only that child", Tag: "budgets",
			Body: "BudgetKey", Status: http.StatusOK, Result: "BudgetList", Errors: []int{400, 404, 413}}),
	adminRoute("resetBudgets", http.MethodPost, "/admin/budgets/reset",
		&Doc{Summary: `Reset every budget's spend; needs {"confirmation":"reset"}`, Tag: "budgets",
			Body: "BudgetReset", Status: http.StatusOK, Result: "BudgetList", Errors: []int{400, 404, 413}}),
	adminRoute("putBudget", http.MethodPut, "/admin/budgets/{user_path}/{period}",
		&Doc{Summary: "Create or update a manual budget (user_path URL-encoded; period hourly, daily, weekly, monthly or whole seconds); " +
			"editing the amount keeps the spend", Tag: "budgets",
			Body: "BudgetWrite", Status: http.StatusOK, Result: "BudgetEntry", Errors: []int{400, 403, 404, 409, 413}}),
	adminRoute("deleteBudget", http.MethodDelete, "/admin/budgets/{user_path}/{period}",
		&Doc{Summary: "Delete a manual budget and its spend", Tag: "budgets", Status: http.StatusNoContent, Errors: []int{400, 404, 409}}),
	adminRoute("listBudgetChildren", http.MethodGet, "/admin/budgets/{user_path}/{period}/children",
		&Doc{Summary: "The children of a per_child budget template with spend in the current period (user_path URL-encoded), most spent first, paged", Tag: "budgets",
			Query: []Param{
				{Name: "limit", Desc: "Page size; default 50, at most 1000.", Type: "integer", Min: 1},
				{Name: "after", Desc: "Cursor from next.", Type: "string"}},
			Status: http.StatusOK, Result: "BudgetChildren", Errors: []int{400, 404}}),
	adminRoute("listRateLimits", http.MethodGet, "/admin/rate-limits",
		&Doc{Summary: "Rate-limit rules with live usage", Tag: "rate-limits", Status: http.StatusOK, Result: "RateLimitList"}),
	adminRoute("putRateLimit", http.MethodPut, "/admin/rate-limits",
		&Doc{Summary: "Create or update a manual rate-limit rule (previous names the rule being edited when its key changes)",
			Tag: "rate-limits", Body: "RateLimitWrite", Status: http.StatusOK, Result: "RateLimitRule", Errors: []int{400, 404, 409, 413}}),
	adminRoute("deleteRateLimit", http.MethodDelete, "/admin/rate-limits",
		&Doc{Summary: "Delete a manual rate-limit rule and its counters", Tag: "rate-limits",
			Body: "RateLimitKey", Status: http.StatusNoContent, Errors: []int{400, 404, 409, 413}}),
	adminRoute("resetOneRateLimit", http.MethodPost, "/admin/rate-limits/reset-one",
		&Doc{Summary: "Clear one rule's request and token windows; a direct child path of a per_child template of that period clears only that child's (the answer lists the template)", Tag: "rate-limits",
			Body: "RateLimitKey", Status: http.StatusOK, Result: "RateLimitList", Errors: []int{400, 404, 413}}),
	adminRoute("listRateLimitChildren", http.MethodGet, "/admin/rate-limits/children",
		&Doc{Summary: "The children of a per_child rate-limit template with usage, most used first, paged", Tag: "rate-limits",
			Query: []Param{
				{Name: "scope", Desc: "user_path (templates are user-path rules); may be left out with user_path.", Type: "string", Enum: []string{"user_path"}},
				{Name: "subject", Desc: "The template's user path.", Type: "string"},
				{Name: "user_path", Desc: "Shorthand for scope user_path with this subject.", Type: "string"},
				{Name: "period", Desc: "The template's period: minute, hour, day or concurrent.", Type: "string", Enum: []string{"minute", "hour", "day", "concurrent"}},
				{Name: "period_seconds", Desc: "A custom window in seconds, instead of period.", Type: "integer", Min: 1},
				{Name: "limit", Desc: "Page size; default 50, at most 1000.", Type: "integer", Min: 1},
				{Name: "after", Desc: "Cursor from next.", Type: "string"}},
			Status: http.StatusOK, Result: "RateLimitChildren", Errors: []int{400, 404}}),
	adminRoute("resetRateLimits", http.MethodPost, "/admin/rate-limits/reset",
		&Doc{Summary: `Clear every rule's counters; needs {"confirmation":"reset"}`, Tag: "rate-limits",
			Body: "RateLimitReset", Status: http.StatusOK, Result: "RateLimitList", Errors: []int{400, 413}}),
	adminRoute("listSessionLimits", http.MethodGet, "/admin/session-limits",
		&Doc{Summary: "Runaway-session limits per user path", Tag: "session-limits", Status: http.StatusOK, Result: "SessionLimitList", Errors: []int{503}}),
	adminRoute("putSessionLimit", http.MethodPut, "/admin/session-limits",
		&Doc{Summary: "Create or replace the manual session limit of a user path", Tag: "session-limits",
			Body: "SessionLimitWrite", Status: http.StatusOK, Result: "SessionLimit", Errors: []int{400, 413, 503}}),
	adminRoute("deleteSessionLimit", http.MethodDelete, "/admin/session-limits",
		&Doc{Summary: "Delete the manual session limit of a user path", Tag: "session-limits",
			Body: "SessionLimitKey", Status: http.StatusNoContent, Errors: []int{400, 404, 413, 503}}),
	adminRoute("getRuntimeConfig", http.MethodGet, "/admin/runtime/config",
		&Doc{Summary: "Effective feature switches, version and providers", Tag: "runtime", Status: http.StatusOK, Result: "RuntimeConfig"}),
	adminRoute("getOpenAPI", http.MethodGet, "/admin/openapi.json",
		&Doc{Summary: "This OpenAPI document", Tag: "runtime", Status: http.StatusOK, Result: "OpenAPI"}),
	adminRoute("listAdminModels", http.MethodGet, "/admin/models",
		&Doc{Summary: "Model inventory: every provider's models with provider type, name and access ([] while listings are not ready)", Tag: "models",
			Query: []Param{{Name: "category", Desc: "Only models of this category.", Type: "string",
				Enum: []string{"all", "text_generation", "embedding", "image", "audio", "video", "utility"}}},
			Status: http.StatusOK, Result: "ModelInventory", Errors: []int{400}}),
	adminRoute("listVirtualModels", http.MethodGet, "/admin/virtual-models",
		&Doc{Summary: "Virtual models and access policies in force (managed rows are read-only)", Tag: "virtual-models",
			Status: http.StatusOK, Result: "VirtualModelList"}),
	adminRoute("putVirtualModel", http.MethodPut, "/admin/virtual-models",
		&Doc{Summary: "Create or replace a virtual model by source (old_source renames)", Tag: "virtual-models",
			Body: "VirtualModelWrite", Status: http.StatusOK, Result: "VirtualModel", Errors: []int{400, 404, 409, 413}}),
	adminRoute("deleteVirtualModel", http.MethodDelete, "/admin/virtual-models/{source}",
		&Doc{Summary: "Delete a virtual model (source URL-encoded)", Tag: "virtual-models",
			Status: http.StatusNoContent, Errors: []int{400, 404, 409}}),
	adminRoute("listFailover", http.MethodGet, "/admin/failover",
		&Doc{Summary: "Failover routes in force (managed routes are read-only)", Tag: "virtual-models",
			Status: http.StatusOK, Result: "FailoverList"}),
	adminRoute("putFailover", http.MethodPut, "/admin/failover",
		&Doc{Summary: "Create or replace the failover route of a primary model", Tag: "virtual-models",
			Body: "FailoverWrite", Status: http.StatusOK, Result: "FailoverRoute", Errors: []int{400, 409, 413}}),
	adminRoute("deleteFailover", http.MethodDelete, "/admin/failover/{primary_model}",
		&Doc{Summary: "Delete the failover route of a primary model (URL-encoded)", Tag: "virtual-models",
			Status: http.StatusNoContent, Errors: []int{400, 404, 409}}),
	adminRoute("getCache", http.MethodGet, "/admin/cache",
		&Doc{Summary: "Response cache: settings, entries, bytes, and hits, misses and hit ratio since start", Tag: "cache",
			Status: http.StatusOK, Result: "CacheStatus"}),
	adminRoute("purgeCache", http.MethodPost, "/admin/cache/purge",
		&Doc{Summary: `Delete cached responses: those of a model and/or user_path, or all with {"confirmation":"purge"}`, Tag: "cache",
			Body: "CachePurgeRequest", Status: http.StatusOK, Result: "CachePurge", Errors: []int{400, 413}}),
	// Everything else under /admin (unknown routes, the legacy alias)
	// needs admin access and is answered by the admin stage.
	{ID: "adminOther", Method: Any, Path: "/admin/*", Shape: ShapeAdmin, Credential: CredentialAdmin, Served: true},

	// Dashboard: the pages and assets need no credential; the data they
	// show comes from the admin API, which does.
	dashboardRoute("dashboardAdminDashboard", "/admin/dashboard", "Dashboard page (no credential needed)", "text/html"),
	dashboardRoute("dashboardAdminDashboardAudit", "/admin/dashboard/audit", "Dashboard page (no credential needed)", "text/html"),
	dashboardRoute("dashboardAdminStaticModelgateCss", "/admin/static/modelgate.css", "Dashboard asset (no credential needed)", "text/css"),
	dashboardRoute("dashboardAdminDashboardUsage", "/admin/dashboard/usage", "Dashboard page (no credential needed)", "text/html"),
	dashboardRoute("dashboardAdminDashboardKeys", "/admin/dashboard/keys", "Dashboard page (no credential needed)", "text/html"),
	dashboardRoute("dashboardAdminDashboardLimits", "/admin/dashboard/limits", "Dashboard page (no credential needed)", "text/html"),
	dashboardRoute("dashboardAdminDashboardModels", "/admin/dashboard/models", "Dashboard page (no credential needed)", "text/html"),
	dashboardRoute("dashboardAdminStaticAppJs", "/admin/static/app.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticApiJs", "/admin/static/api.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticDomJs", "/admin/static/dom.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticChartsJs", "/admin/static/charts.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticLiveJs", "/admin/static/live.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticOverviewJs", "/admin/static/overview.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticAuditJs", "/admin/static/audit.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticConversationJs", "/admin/static/conversation.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticUsageJs", "/admin/static/usage.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticSpendJs", "/admin/static/spend.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticKeysJs", "/admin/static/keys.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticLimitsJs", "/admin/static/limits.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticChildrenJs", "/admin/static/children.js", "Dashboard asset (no credential needed)", "text/javascript"),
	dashboardRoute("dashboardAdminStaticModelsJs", "/admin/static/models.js", "Dashboard asset (no credential needed)", "text/javascript"),
	{ID: "dashboardOther", Method: Any, Path: "/admin/dashboard/*", Shape: ShapeDashboard, Credential: CredentialNone, Served: true},
	{ID: "staticOther", Method: Any, Path: "/admin/static/*", Shape: ShapeDashboard, Credential: CredentialNone, Served: true},
}
