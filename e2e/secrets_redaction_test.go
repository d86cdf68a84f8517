package e2e

// Secrets masked in stored bodies: a prompt holding credentials reaches
// the provider as written, and is stored with each credential replaced
// by [REDACTED:<kind>] and counted on the entry.

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// pastedSecrets are credentials of several kinds as an agent pastes them:
// shaped like real ones, none real. The master key is the gateway's own.
var pastedSecrets = map[string]string{
	"openai_key":     "sk-proj-Q7wErT9yUiOp3AsDfGhJkL2zXcVbNm4Qw8ErTy",
	"aws_access_key": "AKIAZ7QX4MBV2HDK3N5P",
	"github_token":   "ghp_R2d2C3p0Luk3Sky4Walk3rH4nS0l0Ch3wy1",
	"jwt":            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ",
	"gateway_key":    masterKey,
	"env_secret":     "hunter2-Correct-Horse",
}

func secretsPrompt() string {
	s := pastedSecrets
	return "Why does this fail?\n" +
		"client = OpenAI()  # the key was " + s["openai_key"] + "\n" +
		"aws_access_key_id: " + s["aws_access_key"] + "\n" +
		"git remote set-url origin https://" + s["github_token"] + "@github.com/o/r.git\n" +
		"Authorization: Bearer " + s["jwt"] + "\n" +
		"gateway key " + s["gateway_key"] + "\n" +
		"DB_PASSWORD=" + s["env_secret"] + "\n"
}

// storedEntry flushes the store and reads the entry of request id through
// the admin API: the list (to find it) and the entry itself.
func storedEntry(t *testing.T, g *gateway, id string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := runningApp(t).AuditStorage().Flush(ctx); err != nil {
		t.Fatal(err)
	}
	list := adminCall(t, g, "GET", "/admin/audit/log?limit=50", "").JSON(t)
	for _, e := range list["entries"].([]any) {
		if m := e.(map[string]any); m["request_id"] == id {
			return adminCall(t, g, "GET", "/admin/audit/log/"+m["id"].(string), "").JSON(t)
		}
	}
	t.Fatalf("no entry for request %s in %v", id, list)
	return nil
}

func TestSecretsMaskedInStoredBodies(t *testing.T) {
	for _, mode := range []string{"default", "off"} {
		t.Run(mode, func(t *testing.T) {
			clearEnv(t)
			if mode == "off" {
				t.Setenv("LOGGING_REDACT_SECRETS", "off")
			}
			g := startGateway(t, mockBlock(""))
			prompt := secretsPrompt()
			body, _ := json.Marshal(map[string]any{"model": "mock-chat", "messages": []map[string]string{{"role": "user", "content": prompt}}})
			res := request(t, "POST", g.URL+"/v1/chat/completions", string(body),
				append(bearer(masterKey), "Content-Type", "application/json", "X-Request-Id", "secrets-"+mode)...)
			if res.Status != 200 {
				t.Fatalf("status %d: %s", res.Status, res.Body)
			}
			// The mock echoes the prompt: it received every secret as sent.
			var answer struct {
				Choices []struct {
					Message struct{ Content string }
				}
			}
			if err := json.Unmarshal(res.Body, &answer); err != nil || len(answer.Choices) == 0 {
				t.Fatalf("answer %s (%v)", res.Body, err)
			}
			for kind, s := range pastedSecrets {
				if !strings.Contains(answer.Choices[0].Message.Content, s) {
					t.Errorf("the provider did not receive the %s as sent: %s", kind, answer.Choices[0].Message.Content)
				}
			}

			e := storedEntry(t, g, "secrets-"+mode)
			data := e["data"].(map[string]any)
			stored := mustJSON(t, data["request_body"]) + mustJSON(t, data["response_body"])
			if mode == "off" {
				if e["secrets_redacted"] != 0.0 || strings.Contains(stored, "[REDACTED:") || !strings.Contains(stored, pastedSecrets["jwt"]) {
					t.Errorf("masking off: secrets_redacted %v, stored %s", e["secrets_redacted"], stored)
				}
				return
			}
			for kind, s := range pastedSecrets {
				if strings.Contains(stored, s) {
					t.Errorf("the %s is stored in clear", kind)
				}
				for _, b := range []string{"request_body", "response_body"} {
					if !strings.Contains(mustJSON(t, data[b]), "[REDACTED:"+kind+"]") {
						t.Errorf("%s has no [REDACTED:%s]: %s", b, kind, mustJSON(t, data[b]))
					}
				}
			}
			// Each secret once in the request, once in the echo.
			if want := float64(2 * len(pastedSecrets)); e["secrets_redacted"] != want {
				t.Errorf("secrets_redacted %v, want %v", e["secrets_redacted"], want)
			}
			// Nor is any in the store's files.
			_ = filepathWalkNoSecret(t, g.DataDir)
		})
	}
}

// filepathWalkNoSecret fails when a file under dir holds one of the
// pasted secrets but the master key (which the gateway's own config
// holds).
func filepathWalkNoSecret(t *testing.T, dir string) error {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, de := range entries {
		p := dir + "/" + de.Name()
		if de.IsDir() {
			_ = filepathWalkNoSecret(t, p)
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for kind, s := range pastedSecrets {
			if kind != "gateway_key" && strings.Contains(string(b), s) {
				t.Errorf("%s holds the %s in clear", p, kind)
			}
		}
	}
	return nil
}

// TestSecretPolicyBlocksOrMasks: with secret_policy, a prompt holding
// credentials is refused on a path that blocks (400 secret_in_request
// naming the kind, in the route's error shape, nothing sent), reaches
// the provider masked on a path that masks (recorded as a request
// revision), and as written on a path below a masking one that allows.
func TestSecretPolicyBlocksOrMasks(t *testing.T) {
	clearEnv(t)
	g := startGateway(t, mockBlock("secret_policy /team/blocked block\nsecret_policy /team mask\nsecret_policy /team/trusted allow"))
	prompt := secretsPrompt()
	chat, _ := json.Marshal(map[string]any{"model": "mock-chat", "messages": []map[string]string{{"role": "user", "content": prompt}}})
	messages, _ := json.Marshal(map[string]any{"model": "mock-chat", "max_tokens": 64, "messages": []map[string]string{{"role": "user", "content": prompt}}})
	send := func(path, route string, body []byte, id string) response {
		return request(t, "POST", g.URL+route, string(body),
			append(bearer(masterKey), "Content-Type", "application/json", userPathHeader, path, "X-Request-Id", id)...)
	}

	res := send("/team/blocked/bot", "/v1/chat/completions", chat, "policy-block")
	res.ExpectErr(t, 400, "invalid_request_error", "secret_in_request")
	if !strings.Contains(string(res.Body), "openai_key") || strings.Contains(string(res.Body), pastedSecrets["openai_key"]) {
		t.Errorf("the refusal should name the kind and not quote the key: %s", res.Body)
	}
	res = send("/team/blocked", "/v1/messages", messages, "policy-block-messages")
	var anthropicErr struct {
		Type  string
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal(res.Body, &anthropicErr); err != nil || res.Status != 400 || anthropicErr.Type != "error" ||
		!strings.Contains(anthropicErr.Error.Message, "credential") {
		t.Errorf("a blocked Messages request: %d %s", res.Status, res.Body)
	}

	res = send("/team/a", "/v1/chat/completions", chat, "policy-mask")
	if res.Status != 200 {
		t.Fatalf("masked request: %d %s", res.Status, res.Body)
	}
	for kind, s := range pastedSecrets {
		if strings.Contains(string(res.Body), s) {
			t.Errorf("the provider received the %s (its echo holds it)", kind)
		}
		if !strings.Contains(string(res.Body), "[REDACTED:"+kind+"]") {
			t.Errorf("the provider's echo has no [REDACTED:%s]: %s", kind, res.Body)
		}
	}
	e := storedEntry(t, g, "policy-mask")
	revisions := mustJSON(t, e["data"].(map[string]any)["request_revisions"])
	if !strings.Contains(revisions, "mask_secrets") {
		t.Errorf("the entry records no mask_secrets revision: %s", revisions)
	}

	res = send("/team/trusted/x", "/v1/chat/completions", chat, "policy-allow")
	if res.Status != 200 || !strings.Contains(string(res.Body), pastedSecrets["openai_key"]) {
		t.Errorf("a path that allows: %d, the provider should get the prompt as written", res.Status)
	}
}
