package mock

import (
	"math"
	"net/http"
	"time"

	"github.com/tidwall/gjson"
)

// Finish reasons used by the mock.
const (
	finishStop      = "stop"
	finishLength    = "length"
	finishToolCalls = "tool_calls"
)

// chatRequest is the validated part of a chat completion request that the
// mock uses.
type chatRequest struct {
	model        string
	messages     []message
	stream       bool
	includeUsage bool
	maxTokens    int            // 0: unlimited
	tools        []gjson.Result // the "function" objects of the tools to call, in order
	format       answerFormat   // from response_format
	schema       gjson.Result   // the JSON schema of a formatJSONSchema answer
}

// answerFormat is the form of a text answer that response_format asks for.
type answerFormat int

const (
	formatText       answerFormat = iota // the echo
	formatJSONObject                     // {"echo": <the echo's text>}
	formatJSONSchema                     // a document valid against the request's schema
)

// message is one message of a chat request, its members read once.
type message struct {
	role      string
	content   gjson.Result
	toolCalls gjson.Result
}

// completion is the deterministic answer to a chat request, independent of
// whether it is streamed.
type completion struct {
	id           string
	created      int64
	model        string
	content      string     // the answer text, unless toolCalls is set
	json         bool       // content is a JSON document (streamed in even pieces)
	toolCalls    []toolCall // the tool calls, or none
	finishReason string
	usage        usage
}

// usage is the OpenAI chat usage object.
type usage struct {
	PromptTokens            int                     `json:"prompt_tokens"`
	CompletionTokens        int                     `json:"completion_tokens"`
	TotalTokens             int                     `json:"total_tokens"`
	PromptTokensDetails     promptTokensDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails completionTokensDetails `json:"completion_tokens_details"`
}

type promptTokensDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type completionTokensDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}

// chatCompletion is the non-streamed response body.
type chatCompletion struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []chatChoice `json:"choices"`
	Usage   usage        `json:"usage"`
}

type chatChoice struct {
	Index        int         `json:"index"`
	Message      chatMessage `json:"message"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type chatMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	Refusal   *string    `json:"refusal"`
	ToolCalls []toolCall `json:"tool_calls,omitempty"`
}

// toolCall is one function call in an assistant message.
type toolCall struct {
	ID       string           `json:"id"`
	Type     string           `json:"type"`
	Function toolCallFunction `json:"function"`
}

type toolCallFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// handleChat serves POST /chat/completions.
func (h *handler) handleChat(w http.ResponseWriter, r *http.Request) {
	root, body, ok := readJSON(w, r)
	if !ok {
		return
	}
	req, apiErr := h.parseChatRequest(root)
	if apiErr != nil {
		writeError(w, apiErr)
		return
	}
	c := complete(req, digest(body))
	if req.stream {
		h.writeStream(w, r, c, req.includeUsage)
		return
	}
	writeJSON(w, http.StatusOK, c.response())
}

// parseChatRequest validates a chat completion request body.
func (h *handler) parseChatRequest(root gjson.Result) (*chatRequest, *apiError) {
	m := members(root, "model", "messages", "stream", "stream_options",
		"max_completion_tokens", "max_tokens", "tools", "tool_choice", "parallel_tool_calls", "response_format")
	model, msgs, stream, streamOptions, tools, toolChoice := m[0], m[1], m[2], m[3], m[6], m[7]
	if model.Type != gjson.String || model.Str == "" {
		return nil, missingModel()
	}
	if !h.chatModels[model.Str] {
		return nil, modelNotFound(model.Str)
	}
	req := &chatRequest{model: model.Str}

	if !msgs.IsArray() {
		return nil, invalidRequest("messages", "Missing required parameter: 'messages'.")
	}
	i := 0
	var bad bool
	msgs.ForEach(func(_, v gjson.Result) bool {
		if !v.IsObject() {
			bad = true
			return false
		}
		f := members(v, "role", "content", "tool_calls")
		if f[0].Type != gjson.String {
			bad = true
			return false
		}
		req.messages = append(req.messages, message{role: f[0].Str, content: f[1], toolCalls: f[2]})
		i++
		return true
	})
	if bad {
		return nil, invalidRequest("messages", "Invalid value for 'messages[%d]': expected an object with a string 'role'.", i)
	}
	if len(req.messages) == 0 {
		return nil, invalidRequest("messages", "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.")
	}

	switch stream.Type {
	case gjson.True:
		req.stream = true
	case gjson.False, gjson.Null:
	default:
		return nil, invalidRequest("stream", "Invalid type for 'stream': expected a boolean.")
	}
	include := streamOptions.Get("include_usage")
	if streamOptions.Exists() && !include.Exists() {
		// A path reads on past a first member without the field, to a
		// later member of the same name.
		include = root.Get("stream_options.include_usage")
	}
	req.includeUsage = req.stream && include.Type == gjson.True

	param, limit := "max_completion_tokens", m[4]
	if !limit.Exists() || limit.Type == gjson.Null {
		param, limit = "max_tokens", m[5]
	}
	if limit.Exists() && limit.Type != gjson.Null {
		if limit.Type != gjson.Number || limit.Num < 1 || limit.Num != math.Trunc(limit.Num) {
			return nil, invalidRequest(param, "Invalid '%s': expected an integer of at least 1.", param)
		}
		req.maxTokens = int(min(limit.Num, math.MaxInt32))
	}

	calls, apiErr := chooseTools(tools, toolChoice, m[8], lastUserText(req.messages))
	if apiErr != nil {
		return nil, apiErr
	}
	req.tools = calls
	if req.format, req.schema, apiErr = parseResponseFormat(m[9]); apiErr != nil {
		return nil, apiErr
	}
	return req, nil
}

// parseResponseFormat validates a chat request's response_format and
// returns the answer format it asks for and, for json_schema, the schema.
// A json_schema format without a schema is answered like json_object.
func parseResponseFormat(rf gjson.Result) (answerFormat, gjson.Result, *apiError) {
	var none gjson.Result
	if !rf.Exists() || rf.Type == gjson.Null {
		return formatText, none, nil
	}
	if !rf.IsObject() {
		return 0, none, invalidRequest("response_format", "Invalid type for 'response_format': expected an object.")
	}
	typ := rf.Get("type")
	if typ.Type != gjson.String {
		return 0, none, invalidRequest("response_format.type", "Missing required parameter: 'response_format.type'.")
	}
	switch typ.Str {
	case "text":
		return formatText, none, nil
	case "json_object":
		return formatJSONObject, none, nil
	case "json_schema":
	default:
		return 0, none, invalidRequest("response_format.type",
			"Invalid value: '%s'. Supported values are: 'json_object', 'json_schema', and 'text'.", typ.Str)
	}
	js := rf.Get("json_schema")
	if !js.IsObject() {
		return 0, none, invalidRequest("response_format.json_schema", "Missing required parameter: 'response_format.json_schema'.")
	}
	if name := js.Get("name"); name.Type != gjson.String || name.Str == "" {
		return 0, none, invalidRequest("response_format.json_schema.name", "Missing required parameter: 'response_format.json_schema.name'.")
	}
	schema := js.Get("schema")
	switch {
	case !schema.Exists() || schema.Type == gjson.Null:
		return formatJSONObject, none, nil
	case !schema.IsObject() && schema.Type != gjson.True && schema.Type != gjson.False:
		return 0, none, invalidRequest("response_format.json_schema.schema", "Invalid type for 'response_format.json_schema.schema': expected an object.")
	}
	return formatJSONSchema, schema, nil
}

// complete computes the deterministic answer to req.
func complete(req *chatRequest, d requestDigest) *completion {
	c := &completion{
		id:           d.completionID(),
		created:      time.Now().Unix(),
		model:        req.model,
		finishReason: finishStop,
	}
	last := req.messages[len(req.messages)-1]
	var completionTokens int
	switch {
	case last.role == "tool" && req.format == formatText:
		c.content = answerText(c, "Tool result received: ", contentText(last.content), req.maxTokens)
		completionTokens = estimateTokens(c.content)
	case len(req.tools) > 0 && last.role != "tool":
		_, text, _ := trigger(lastUserText(req.messages))
		for i, fn := range req.tools {
			name := fn.Get("name").Str
			args := toolArguments(fn.Get("parameters"), text)
			c.toolCalls = append(c.toolCalls, toolCall{
				ID:       d.toolCallID(i),
				Type:     "function",
				Function: toolCallFunction{Name: name, Arguments: args},
			})
			completionTokens += estimateTokens(name + args)
		}
		c.finishReason = finishToolCalls
	case req.format != formatText:
		text := lastUserText(req.messages)
		if last.role == "tool" {
			text = contentText(last.content)
		}
		if req.format == formatJSONSchema {
			c.content = generateJSON(req.schema, text)
		} else {
			c.content = `{"echo":` + jsonString(text) + `}`
		}
		c.json = true
		if req.maxTokens > 0 && estimateTokens(c.content) > req.maxTokens {
			// Cut like a model that runs out of tokens: the
			// document is left unfinished.
			c.content = string([]rune(c.content)[:4*req.maxTokens])
			c.finishReason = finishLength
		}
		completionTokens = estimateTokens(c.content)
	default:
		c.content = answerText(c, "Echo: ", lastUserText(req.messages), req.maxTokens)
		completionTokens = estimateTokens(c.content)
	}
	prompt := promptTokens(req.messages)
	c.usage = usage{
		PromptTokens:     prompt,
		CompletionTokens: completionTokens,
		TotalTokens:      prompt + completionTokens,
	}
	return c
}

// answerText returns prefix + text, with text cut to maxTokens words when
// maxTokens > 0; cutting sets c's finish reason to "length".
func answerText(c *completion, prefix, text string, maxTokens int) string {
	if maxTokens > 0 {
		var cut bool
		if text, cut = truncateWords(text, maxTokens); cut {
			c.finishReason = finishLength
		}
	}
	return prefix + text
}

// response returns the non-streamed response body for c.
func (c *completion) response() chatCompletion {
	msg := chatMessage{Role: "assistant"}
	if len(c.toolCalls) > 0 {
		msg.ToolCalls = c.toolCalls
	} else {
		content := c.content
		msg.Content = &content
	}
	return chatCompletion{
		ID:      c.id,
		Object:  "chat.completion",
		Created: c.created,
		Model:   c.model,
		Choices: []chatChoice{{Index: 0, Message: msg, FinishReason: c.finishReason}},
		Usage:   c.usage,
	}
}
