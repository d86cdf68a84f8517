package e2e

// A scripted upstream for coding-agent tests: it plays a short agent
// session turn by turn, in the Chat Completions or the Anthropic Messages
// shape, streamed or not. On the turn that carries the task ("Create the
// file <path> containing exactly: <text>") it calls the agent's
// file-writing tool with a real argument object; on the turn that carries
// that tool's result it answers in text; any other request (titles,
// probes) gets a short text answer.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// agentModel is the model the scripted upstream lists and answers as.
const agentModel = "scripted-agent"

// agentTask matches the task the agent tests give.
var agentTask = regexp.MustCompile(`Create the file (\S+) containing exactly: ([A-Za-z0-9-]+)`)

// agentDone is the scripted upstream's last answer.
const agentDone = "Done: the file is written."

// agentTurn is what the scripted upstream saw and did for one request.
type agentTurn struct {
	Path       string   // the request path
	Tools      []string // the tool names offered
	Stream     bool
	ToolResult string // the tool result the request carried, if any
	Called     string // the tool the answer called, if any
	Arguments  string // its arguments (a JSON object)
	Text       string // the text answered, if no tool was called
}

// agentUpstream is the scripted upstream.
type agentUpstream struct {
	srv       *httptest.Server
	anthropic bool

	mu    sync.Mutex
	turns []agentTurn
}

// newAgentUpstream starts a scripted upstream speaking Chat Completions,
// or Anthropic Messages when anthropic is true.
func newAgentUpstream(t testing.TB, anthropic bool) *agentUpstream {
	u := &agentUpstream{anthropic: anthropic}
	u.srv = httptest.NewServer(http.HandlerFunc(u.serve))
	t.Cleanup(u.srv.Close)
	return u
}

// BaseURL is the upstream's API root.
func (u *agentUpstream) BaseURL() string { return u.srv.URL + "/v1" }

// Turns returns the requests answered so far.
func (u *agentUpstream) Turns() []agentTurn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]agentTurn(nil), u.turns...)
}

// Summary describes the turns, one line each, for test logs.
func (u *agentUpstream) Summary() string {
	var b strings.Builder
	for i, tr := range u.Turns() {
		fmt.Fprintf(&b, "  %d %s stream=%v tools=%d", i, tr.Path, tr.Stream, len(tr.Tools))
		switch {
		case tr.Called != "":
			fmt.Fprintf(&b, " -> call %s(%s)", tr.Called, tr.Arguments)
		default:
			fmt.Fprintf(&b, " -> text %q", tr.Text)
		}
		if tr.ToolResult != "" {
			fmt.Fprintf(&b, " [tool result %.60q]", tr.ToolResult)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (u *agentUpstream) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
		w.Header().Set("Content-Type", "application/json")
		if u.anthropic {
			fmt.Fprintf(w, `{"data":[{"type":"model","id":%q,"display_name":"Scripted","created_at":"2025-01-01T00:00:00Z"}],"has_more":false}`, agentModel)
		} else {
			fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","created":1,"owned_by":"script"}]}`, agentModel)
		}
		return
	}
	body, _ := io.ReadAll(r.Body)
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"not JSON"}}`, http.StatusBadRequest)
		return
	}
	turn := u.play(req)
	turn.Path = r.URL.Path
	u.mu.Lock()
	u.turns = append(u.turns, turn)
	n := len(u.turns)
	u.mu.Unlock()
	if u.anthropic {
		writeAgentMessages(w, turn, n)
	} else {
		writeAgentChat(w, turn, n)
	}
}

// play decides the answer to req.
func (u *agentUpstream) play(req map[string]any) agentTurn {
	var turn agentTurn
	turn.Stream, _ = req["stream"].(bool)
	tools, _ := req["tools"].([]any)
	for _, t := range tools {
		tm, _ := t.(map[string]any)
		if fn, ok := tm["function"].(map[string]any); ok {
			tm = fn
		}
		if name, ok := tm["name"].(string); ok {
			turn.Tools = append(turn.Tools, name)
		}
	}
	msgs, _ := req["messages"].([]any)
	var userText strings.Builder
	for i, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		last := i == len(msgs)-1
		switch role {
		case "tool":
			if last {
				turn.ToolResult = contentString(mm["content"])
			}
		case "user":
			if blocks, ok := mm["content"].([]any); ok {
				for _, b := range blocks {
					bm, _ := b.(map[string]any)
					switch bm["type"] {
					case "tool_result":
						if last {
							turn.ToolResult += contentString(bm["content"]) + " "
						}
					case "text":
						s, _ := bm["text"].(string)
						userText.WriteString(s + "\n")
					}
				}
			} else {
				userText.WriteString(contentString(mm["content"]) + "\n")
			}
		}
	}
	task := agentTask.FindAllStringSubmatch(userText.String(), -1)
	switch {
	case turn.ToolResult != "":
		turn.ToolResult = strings.TrimSpace(turn.ToolResult)
		turn.Text = agentDone
	case len(task) == 0 || len(turn.Tools) == 0:
		turn.Text = "ok"
	default:
		path, content := task[len(task)-1][1], task[len(task)-1][2]
		turn.Called, turn.Arguments = writeCall(turn.Tools, path, content)
		if turn.Called == "" {
			turn.Text = "no file-writing tool was offered"
		}
	}
	return turn
}

// writeCall picks the agent's file-writing tool among tools and the
// arguments that write content to path with it.
func writeCall(tools []string, path, content string) (name, args string) {
	has := map[string]bool{}
	for _, t := range tools {
		has[t] = true
	}
	enc := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	switch {
	case has["Write"]: // Claude Code
		return "Write", enc(map[string]string{"file_path": path, "content": content})
	case has["write"]: // opencode
		return "write", enc(map[string]string{"filePath": path, "content": content})
	case has["exec_command"]: // Codex CLI
		return "exec_command", enc(map[string]any{"cmd": fmt.Sprintf("printf '%%s' '%s' > '%s'", content, path)})
	case has["shell"]:
		return "shell", enc(map[string]any{"command": []string{"bash", "-c", fmt.Sprintf("printf '%%s' '%s' > '%s'", content, path)}})
	}
	return "", ""
}

// contentString flattens a message or tool-result content to text.
func contentString(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case []any:
		var b strings.Builder
		for _, p := range v {
			pm, _ := p.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				b.WriteString(s)
			}
		}
		return b.String()
	}
	return ""
}

// writeAgentChat answers in the Chat Completions shape.
func writeAgentChat(w http.ResponseWriter, turn agentTurn, n int) {
	id := fmt.Sprintf("chatcmpl-script%d", n)
	usage := `{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}`
	finish := "stop"
	if turn.Called != "" {
		finish = "tool_calls"
	}
	callID := fmt.Sprintf("call_script%d", n)
	if !turn.Stream {
		w.Header().Set("Content-Type", "application/json")
		msg := fmt.Sprintf(`{"role":"assistant","content":%s}`, jsonStr(turn.Text))
		if turn.Called != "" {
			msg = fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%s}}]}`,
				callID, turn.Called, jsonStr(turn.Arguments))
		}
		fmt.Fprintf(w, `{"id":%q,"object":"chat.completion","created":1,"model":%q,"choices":[{"index":0,"message":%s,"finish_reason":%q}],"usage":%s}`,
			id, agentModel, msg, finish, usage)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta, fin string) {
		fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[{\"index\":0,\"delta\":%s,\"finish_reason\":%s}]}\n\n",
			id, agentModel, delta, fin)
	}
	if turn.Called != "" {
		chunk(fmt.Sprintf(`{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":%q,"type":"function","function":{"name":%q,"arguments":""}}]}`, callID, turn.Called), "null")
		// The arguments arrive in two pieces, as real upstreams send them.
		half := len(turn.Arguments) / 2
		for _, piece := range []string{turn.Arguments[:half], turn.Arguments[half:]} {
			chunk(fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, jsonStr(piece)), "null")
		}
	} else {
		chunk(`{"role":"assistant","content":""}`, "null")
		chunk(fmt.Sprintf(`{"content":%s}`, jsonStr(turn.Text)), "null")
	}
	chunk(`{}`, jsonStr(finish))
	fmt.Fprintf(w, "data: {\"id\":%q,\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":%q,\"choices\":[],\"usage\":%s}\n\ndata: [DONE]\n\n", id, agentModel, usage)
}

// writeAgentMessages answers in the Anthropic Messages shape.
func writeAgentMessages(w http.ResponseWriter, turn agentTurn, n int) {
	id := fmt.Sprintf("msg_script%d", n)
	stop := "end_turn"
	if turn.Called != "" {
		stop = "tool_use"
	}
	toolID := fmt.Sprintf("toolu_script%d", n)
	if !turn.Stream {
		w.Header().Set("Content-Type", "application/json")
		block := fmt.Sprintf(`{"type":"text","text":%s}`, jsonStr(turn.Text))
		if turn.Called != "" {
			block = fmt.Sprintf(`{"type":"tool_use","id":%q,"name":%q,"input":%s}`, toolID, turn.Called, turn.Arguments)
		}
		fmt.Fprintf(w, `{"id":%q,"type":"message","role":"assistant","model":%q,"content":[%s],"stop_reason":%q,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":10}}`,
			id, agentModel, block, stop)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(name, data string) { fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, data) }
	event("message_start", fmt.Sprintf(`{"type":"message_start","message":{"id":%q,"type":"message","role":"assistant","model":%q,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":100,"output_tokens":1}}}`, id, agentModel))
	if turn.Called != "" {
		event("content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":%q,"name":%q,"input":{}}}`, toolID, turn.Called))
		half := len(turn.Arguments) / 2
		for _, piece := range []string{turn.Arguments[:half], turn.Arguments[half:]} {
			event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%s}}`, jsonStr(piece)))
		}
	} else {
		event("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
		event("content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, jsonStr(turn.Text)))
	}
	event("content_block_stop", `{"type":"content_block_stop","index":0}`)
	event("message_delta", fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":{"output_tokens":10}}`, stop))
	event("message_stop", `{"type":"message_stop"}`)
}

// jsonStr is s as a JSON string literal.
func jsonStr(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
