package e2e

// Real coding agents through the gateway: Claude Code on /v1/messages,
// Codex CLI on /v1/responses and opencode on /v1/chat/completions, each
// run non-interactively on a translated path against the scripted
// upstream (agent_upstream_test.go), told to write a file. The CLIs come
// from $MODELGATE_AGENTS_BIN (a directory holding `claude`, `codex` and
// `opencode`, as .ci/run installs them) or from PATH; without them the
// tests are skipped.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentContent is what the agents are told to write.
const agentContent = "modelgate-agent-ok"

// agentBin returns the path of the agent CLI name, or skips the test.
func agentBin(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv("MODELGATE_AGENTS_BIN"); dir != "" {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); err == nil {
			return p
		}
		t.Skipf("%s is not installed in MODELGATE_AGENTS_BIN=%s (.ci/run installs it with npm)", name, dir)
	}
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s is not installed: set MODELGATE_AGENTS_BIN to the directory holding the agent CLIs (.ci/run installs them with npm)", name)
	}
	return p
}

// agentEnv is the environment of an agent run: PATH (for node), a home
// of its own, telemetry, update checks and error reports off, and extra.
func agentEnv(t *testing.T, home string, extra ...string) []string {
	t.Helper()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TMPDIR=" + os.TempDir(),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
		"DISABLE_AUTOUPDATER=1",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	}
	return append(env, extra...)
}

// runAgent runs cmd (at most 3 minutes) and returns its combined output
// and exit code.
func runAgent(t *testing.T, bin string, env []string, dir string, args ...string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	code := 0
	if err != nil {
		code = -1
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
	}
	return string(out), code
}

// checkAgentRun checks the outcome of an agent run: exit code 0, the file
// written with the content, the scripted session played to its end, and an
// audit entry for each model request, answered 200 on path by provider.
func checkAgentRun(t *testing.T, g *gateway, up *agentUpstream, out string, code int, target, tool, path string) {
	t.Helper()
	t.Logf("upstream turns:\n%s", up.Summary())
	if code != 0 {
		t.Errorf("exit code %d, output:\n%s", code, out)
	}
	got, err := os.ReadFile(target)
	if err != nil {
		t.Fatalf("the agent did not write %s: %v\noutput:\n%s", target, err, out)
	}
	if strings.TrimSpace(string(got)) != agentContent {
		t.Errorf("%s holds %q, want %q", target, got, agentContent)
	}
	var called, answered bool
	for _, tr := range up.Turns() {
		if tr.Called == tool {
			called = true
		}
		if tr.ToolResult != "" && tr.Text == agentDone {
			answered = true
		}
	}
	if !called || !answered {
		t.Errorf("session incomplete: called %s %v, answered the tool result %v", tool, called, answered)
	}
	if !strings.Contains(out, agentDone) {
		t.Errorf("the agent did not print the final answer:\n%s", out)
	}

	if err := activeApp(t).AuditStorage().Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := adminCall(t, g, "GET", "/admin/audit/log?limit=200", "")
	if res.Status != 200 {
		t.Fatalf("audit log: %d %s", res.Status, res.Body)
	}
	var log struct {
		Entries []struct {
			Path         string `json:"path"`
			StatusCode   int    `json:"status_code"`
			ProviderName string `json:"provider_name"`
			Model        string `json:"requested_model"`
		} `json:"entries"`
	}
	if err := json.Unmarshal(res.Body, &log); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range log.Entries {
		if e.Path == path && e.StatusCode == 200 && e.ProviderName == "script" && e.Model == agentModel {
			n++
		}
	}
	if turns := len(up.Turns()); n < 2 || n < turns {
		t.Errorf("%d audit entries for %s answered by the scripted upstream, want one per upstream turn (%d): %s", n, path, turns, res.Body)
	}
}

// TestAgentClaudeCode: Claude Code on /v1/messages, translated onto an
// OpenAI-shaped (Chat Completions) upstream.
func TestAgentClaudeCode(t *testing.T) {
	bin := agentBin(t, "claude")
	clearEnv(t)
	up := newAgentUpstream(t, false)
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("script", "vllm", "", up.BaseURL()))

	dir, home := t.TempDir(), t.TempDir()
	target := filepath.Join(dir, "answer.txt")
	env := agentEnv(t, home,
		"ANTHROPIC_BASE_URL="+g.URL,
		"ANTHROPIC_API_KEY="+masterKey,
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, ".claude"),
		"ANTHROPIC_DEFAULT_HAIKU_MODEL="+agentModel,
		"ANTHROPIC_SMALL_FAST_MODEL="+agentModel,
	)
	out, code := runAgent(t, bin, env, dir, "-p", fmt.Sprintf("Create the file %s containing exactly: %s", target, agentContent),
		"--model", agentModel, "--permission-mode", "acceptEdits", "--allowedTools", "Write", "--max-turns", "4")
	checkAgentRun(t, g, up, out, code, target, "Write", "/v1/messages")
}

// TestAgentCodex: Codex CLI on /v1/responses, translated onto a Chat
// Completions upstream and onto an Anthropic-shaped one.
func TestAgentCodex(t *testing.T) {
	bin := agentBin(t, "codex")
	for _, c := range []struct {
		name, typ, key string
		anthropic      bool
	}{{"onto chat", "vllm", "", false}, {"onto anthropic", "anthropic", anthropicKey, true}} {
		t.Run(c.name, func(t *testing.T) {
			clearEnv(t)
			up := newAgentUpstream(t, c.anthropic)
			g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("script", c.typ, c.key, up.BaseURL()))

			dir, home := t.TempDir(), t.TempDir()
			codexHome := filepath.Join(home, ".codex")
			if err := os.MkdirAll(codexHome, 0o700); err != nil {
				t.Fatal(err)
			}
			// A custom provider on the Responses wire, with Codex's own
			// defaults otherwise: its provider-side web_search tool stays
			// on, and the gateway leaves it out for the chat-shaped mock;
			// no retries, no update check, no analytics.
			cfg := fmt.Sprintf(`model = %q
model_provider = "modelgate"
check_for_update_on_startup = false

[analytics]
enabled = false

[model_providers.modelgate]
name = "Modelgate"
base_url = %q
env_key = "MODELGATE_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
`, agentModel, g.URL+"/v1")
			if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
				t.Fatal(err)
			}
			target := filepath.Join(dir, "answer.txt")
			env := agentEnv(t, home, "CODEX_HOME="+codexHome, "MODELGATE_KEY="+masterKey)
			out, code := runAgent(t, bin, env, dir, "exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox",
				fmt.Sprintf("Create the file %s containing exactly: %s", target, agentContent))
			checkAgentRun(t, g, up, out, code, target, "exec_command", "/v1/responses")
		})
	}
}

// TestAgentOpencode: opencode on /v1/chat/completions through its
// bundled OpenAI-compatible provider, translated onto an Anthropic-shaped
// (Messages) upstream. Its configuration is a provider block pointing at
// the gateway and nothing else of note: updates and sharing off.
func TestAgentOpencode(t *testing.T) {
	bin := agentBin(t, "opencode")
	clearEnv(t)
	up := newAgentUpstream(t, true)
	g := startGateway(t, "master_key "+masterKey+"\n"+providerBlock("script", "anthropic", anthropicKey, up.BaseURL()))

	dir, home := t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "provider": {
    "modelgate": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "Modelgate",
      "options": {"baseURL": %q, "apiKey": "{env:MODELGATE_KEY}"},
      "models": {%q: {"name": "Scripted agent"}}
    }
  },
  "model": %q,
  "autoupdate": false,
  "share": "disabled"
}
`, g.URL+"/v1", agentModel, "modelgate/"+agentModel)
	if err := os.WriteFile(filepath.Join(dir, "opencode.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "answer.txt")
	env := agentEnv(t, home, "MODELGATE_KEY="+masterKey, "OPENCODE_DISABLE_AUTOUPDATE=true")
	out, code := runAgent(t, bin, env, dir, "run", fmt.Sprintf("Create the file %s containing exactly: %s", target, agentContent))
	checkAgentRun(t, g, up, out, code, target, "write", "/v1/chat/completions")
}
