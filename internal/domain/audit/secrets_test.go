package audit_test

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// gen makes random strings for the corpus: real-looking, never real
// credentials (a fixed seed, so failures reproduce).
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed^0x5eed))} }

const (
	alnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	urlset = alnum + "-_"
	b64set = alnum + "/+"
	upnum  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	digits = "0123456789"
)

func (g *gen) s(set string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = set[g.r.IntN(len(set))]
	}
	return string(b)
}

// mixedS is g.s that holds an upper-case letter, a lower-case letter
// and a digit, as every real random key of that length does.
func (g *gen) mixedS(set string, n int) string {
	for {
		s := g.s(set, n)
		if strings.ContainsAny(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") && strings.ContainsAny(s, "abcdefghijklmnopqrstuvwxyz") && strings.ContainsAny(s, digits) {
			return s
		}
	}
}

func (g *gen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

func (g *gen) jwt() string {
	enc := base64.RawURLEncoding
	h := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	p := enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%d","name":"user %s","iat":%d}`, g.r.IntN(1e9), g.s(alnum, 6), 1700000000+g.r.IntN(1e7))))
	return h + "." + p + "." + enc.EncodeToString(g.bytes(32))
}

func (g *gen) pem(label string, lines int) string {
	var sb strings.Builder
	sb.WriteString("-----BEGIN " + label + "-----\n")
	for range lines {
		sb.WriteString(base64.StdEncoding.EncodeToString(g.bytes(48)) + "\n")
	}
	sb.WriteString(base64.StdEncoding.EncodeToString(g.bytes(20)) + "\n")
	sb.WriteString("-----END " + label + "-----")
	return sb.String()
}

// secretCase is one secret of the corpus: text holds it, kind is the
// placeholder's kind, secret what must not survive.
type secretCase struct {
	name, text, secret, kind string
}

// masterKey and providerKey are the configured secrets of the corpus's
// Redactor.
var (
	masterKey   = "mgmaster-" + newGen(99).s(alnum, 24)
	providerKey = newGen(98).mixedS(alnum, 32) // a Mistral-style key: no prefix
)

// corpus returns the secrets, several of each kind, in the contexts they
// are pasted in.
func corpus() []secretCase {
	var cs []secretCase
	add := func(name, kind, secret, text string) {
		cs = append(cs, secretCase{name: name, kind: kind, secret: secret, text: text})
	}
	for i := range 5 {
		g := newGen(uint64(i + 1))
		k := "sk-" + g.mixedS(alnum, 48)
		add("openai legacy", audit.SecretOpenAIKey, k, "my key is "+k+" please")
		k = "sk-proj-" + g.mixedS(urlset, 156)
		add("openai project", audit.SecretOpenAIKey, k, "OpenAI(api_key=\""+k+"\")")
		k = "sk-svcacct-" + g.mixedS(urlset, 120)
		add("openai service account", audit.SecretOpenAIKey, k, "client := openai.NewClient(option.WithAPIKey(`"+k+"`))")
		k = "sk-admin-" + g.mixedS(urlset, 100)
		add("openai admin", audit.SecretOpenAIKey, k, "Authorization: Bearer "+k)
		k = "sk-ant-api03-" + g.s(urlset, 93) + "AA"
		add("anthropic", audit.SecretAnthropicKey, k, "x-api-key: "+k+"\n")
		k = "sk-ant-admin01-" + g.s(urlset, 93) + "AA"
		add("anthropic admin", audit.SecretAnthropicKey, k, "key= "+k)
		k = "xai-" + g.mixedS(alnum, 80)
		add("xai", audit.SecretXAIKey, k, "XAI key: "+k)
		k = "gsk_" + g.s(alnum, 52)
		add("groq", audit.SecretGroqKey, k, "groq = Groq(api_key='"+k+"')")
		k = "AIza" + g.s(urlset, 35)
		add("google", audit.SecretGoogleAPIKey, k, "https://generativelanguage.googleapis.com/v1beta/models?key="+k[:0]+"x&k2="+k)
		k = "sk_mg_" + g.s(alnum, 32)
		add("managed key", audit.SecretGatewayKey, k, "curl -H 'Authorization: Bearer "+k+"' http://gw/v1/models")
		k = "AKIA" + g.s(upnum, 16)
		add("aws access key", audit.SecretAWSAccessKey, k, "aws_access_key_id: "+k)
		k = "ASIA" + g.s(upnum, 16)
		add("aws session access key", audit.SecretAWSAccessKey, k, `{"AccessKeyId": "`+k+`"}`)
		k = g.mixedS(b64set, 40)
		add("aws secret credentials file", audit.SecretEnv, k, "[default]\naws_access_key_id = AKIA"+g.s(upnum, 16)+"\naws_secret_access_key = "+k+"\n")
		k = g.mixedS(b64set, 40)
		add("aws secret json", audit.SecretAWSSecretKey, k, `{"Credentials": {"SecretAccessKey": "`+k+`", "Expiration": "2025-01-01T00:00:00Z"}}`)
		k = g.mixedS(b64set, 40)
		add("aws secret yaml", audit.SecretAWSSecretKey, k, "credentials:\n  secret_access_key: "+k+"\n")
		k = g.mixedS(b64set, 40)
		add("aws secret env", audit.SecretEnv, k, "AWS_SECRET_ACCESS_KEY="+k)
		for _, p := range []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"} {
			k = p + g.s(alnum, 36)
			add("github "+p, audit.SecretGitHubToken, k, "git clone https://"+k+"@github.com/o/r.git")
		}
		k = "github_pat_" + g.s(alnum, 22) + "_" + g.s(alnum, 59)
		add("github fine-grained", audit.SecretGitHubToken, k, "token: "+k)
		k = "glpat-" + g.s(urlset, 20)
		add("gitlab", audit.SecretGitLabToken, k, "PRIVATE-TOKEN: "+k)
		k = "gldt-" + g.s(urlset, 20)
		add("gitlab deploy", audit.SecretGitLabToken, k, "deploy with "+k)
		k = "xoxb-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s(alnum, 24)
		add("slack bot", audit.SecretSlackToken, k, "SLACK="+k[:0]+"bot "+k)
		k = "xoxp-" + g.s(digits, 12) + "-" + g.s(digits, 12) + "-" + g.s(digits, 13) + "-" + g.s("0123456789abcdef", 32)
		add("slack user", audit.SecretSlackToken, k, "user token "+k)
		k = "hooks.slack.com/services/T" + g.s(upnum, 8) + "/B" + g.s(upnum, 10) + "/" + g.s(alnum, 24)
		add("slack webhook", audit.SecretSlackToken, k, "POST https://"+k)
		k = g.jwt()
		add("jwt", audit.SecretJWT, k, "Authorization: Bearer "+k)
		for _, label := range []string{"RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"} {
			k = g.pem(label, 3+i)
			add("pem "+label, audit.SecretPrivateKey, k, "here is the key file:\n"+k+"\nthanks")
		}
		v := g.s(alnum+"!@#%^*()", 16)
		add("env password", audit.SecretEnv, v, "DB_HOST=db\nDB_PASSWORD="+v+"\nDB_PORT=5432\n")
		v = g.s(alnum, 32)
		add("env secret quoted", audit.SecretEnv, v, "export JWT_SECRET=\""+v+"\"\n")
		v = g.s(alnum, 24)
		add("env token single quoted", audit.SecretEnv, v, "SENTRY_AUTH_TOKEN='"+v+"'\n")
		v = g.s(alnum, 40)
		add("env api key", audit.SecretEnv, v, "STRIPE_API_KEY="+v)
		v = g.s(alnum, 20)
		add("url token", audit.SecretEnv, v, "GET /callback?code=1&access_token="+v+"&state=x")
		v = g.s(alnum, 20)
		add("camel case", audit.SecretEnv, v, "clientSecret = "+v+"\n")
		add("master key", audit.SecretGatewayKey, masterKey, "the gateway key is "+masterKey+".")
		add("provider key", audit.SecretProviderKey, providerKey, "MISTRAL "+providerKey)
	}
	return cs
}

// lookAlikes are texts with nothing to mask: identifiers, hashes and
// blobs that share a shape with some secret.
func lookAlikes() []string {
	g := newGen(7)
	var out []string
	for range 20 {
		u := g.bytes(16)
		out = append(out,
			fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:]),
			hex.EncodeToString(sha256.New().Sum(g.bytes(8))),
			fmt.Sprintf("%x", sha1.Sum(g.bytes(8))),
			strings.ToUpper(fmt.Sprintf("%x", sha1.Sum(g.bytes(8)))),
			base64.StdEncoding.EncodeToString(g.bytes(30)),
			base64.StdEncoding.EncodeToString(g.bytes(48)),
			base64.RawURLEncoding.EncodeToString(g.bytes(64)),
			"commit "+fmt.Sprintf("%x", sha1.Sum(g.bytes(4)))+" fixes it",
			"data:image/png;base64,"+base64.StdEncoding.EncodeToString(g.bytes(300)),
		)
	}
	out = append(out,
		"pip install scikit-learn; import sklearn # sk-learn",
		"sk-abc123", "sk-", "sk-proj", "sk-ant-", "sk-1234", "sk-test-harness-configuration-file",
		"the task-sk-list", "ask-questions-before-answering-please", "xai-grok-integration-guide",
		"xai-sdk", "gsk_short", "ghp_short", "github_pat_", "glpat-short", "AKIAfoo", "AKIA123",
		"AIzaShort", "eyJhbGciOiJIUzI1NiJ9", "eyJ.eyJ.x", "xoxb-", "hooks.slack.com/services/",
		"monkey=banana", "turkey = 3", "max_tokens=100", "MAX_TOKENS=4096", "keyboard=us",
		"tokenizer=cl100k", "KEYS=a,b", "PASSWORD_MIN_LENGTH=", "API_KEY=", `"max_tokens": 100`,
		"-----BEGIN CERTIFICATE-----\n"+base64.StdEncoding.EncodeToString(g.bytes(48))+"\n"+g.mixedS(b64set, 40)+"\n-----END CERTIFICATE-----",
		"-----BEGIN PUBLIC KEY-----\n"+base64.StdEncoding.EncodeToString(g.bytes(48))+"\n-----END PUBLIC KEY-----",
		"a SecretAccessKey is 40 characters long: see the docs",
		"secret_access_key: "+fmt.Sprintf("%x", sha1.Sum(g.bytes(4))),
		"The key, the secret, the token and the password are all different things.",
		"func (k *Key) Token() string { return k.secret }",
		"x == y && z != w || a <= b",
		"https://example.com/a-b-c-d?x=1&y=2",
		"sk_mg_tooshort", "sk_mg_"+g.s(alnum, 31), "sk_mg_"+g.s(alnum, 33),
		strings.Repeat("a ", 100),
		strings.Repeat("-", 100),
	)
	return out
}

// corpusRedactor knows the corpus's master and provider keys.
// Empty and short keys (a provider without one) are ignored.
func corpusRedactor() *audit.Redactor {
	return audit.NewRedactor([]string{"", "short", providerKey}, masterKey, "")
}

func TestMaskSecretsCorpus(t *testing.T) {
	r := corpusRedactor()
	missed := 0
	for _, c := range corpus() {
		for _, form := range []string{"text", "json"} {
			in := []byte(c.text)
			if form == "json" {
				in, _ = json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": "look at this:\n" + c.text + "\nwhat is wrong?"}}})
			}
			out, n := r.MaskSecrets(in)
			if bytes.Contains(out, []byte(c.secret)) || n == 0 {
				missed++
				t.Errorf("%s (%s): missed (n=%d): %s", c.name, form, n, out)
				continue
			}
			if !bytes.Contains(out, []byte("[REDACTED:"+c.kind+"]")) {
				t.Errorf("%s (%s): want kind %s: %s", c.name, form, c.kind, out)
			}
			if form == "json" && !json.Valid(out) {
				t.Errorf("%s: masked JSON is not valid: %s", c.name, out)
			}
			if again, n2 := r.MaskSecrets(out); n2 != 0 || !bytes.Equal(again, out) {
				t.Errorf("%s (%s): masking again found %d: %s", c.name, form, n2, again)
			}
		}
	}
	if missed > 0 {
		t.Errorf("%d false negatives", missed)
	}
}

func TestMaskSecretsLookAlikes(t *testing.T) {
	r := corpusRedactor()
	for _, s := range lookAlikes() {
		for _, in := range [][]byte{[]byte(s), mustJSON(t, s)} {
			out, n := r.MaskSecrets(in)
			if n != 0 || !bytes.Equal(out, in) {
				t.Errorf("false positive (%d) in %q: %s", n, in, out)
			} else if &out[0] != &in[0] {
				t.Errorf("unchanged %q was copied", in)
			}
		}
	}
}

func mustJSON(t testing.TB, s string) []byte {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMaskSecretsWholeBody masks a chat body holding every secret of the
// corpus at once: each is gone, the count is theirs, the JSON valid.
func TestMaskSecretsWholeBody(t *testing.T) {
	cs := corpus()
	var sb strings.Builder
	for _, c := range cs {
		sb.WriteString(c.text + "\n\n")
	}
	sb.WriteString(strings.Join(lookAlikes(), "\n"))
	in, _ := json.Marshal(map[string]any{"model": "m", "messages": []map[string]string{{"role": "user", "content": sb.String()}}})
	orig := append([]byte(nil), in...)
	out, n := corpusRedactor().MaskSecrets(in)
	if !bytes.Equal(in, orig) {
		t.Fatal("MaskSecrets changed its input")
	}
	if !json.Valid(out) {
		t.Fatalf("not valid JSON: %s", out)
	}
	for _, c := range cs {
		if bytes.Contains(out, []byte(c.secret)) {
			t.Errorf("%s survived", c.name)
		}
	}
	if n < len(cs) {
		t.Errorf("count %d, want at least %d", n, len(cs))
	}
}

func TestMaskSecretsEscapes(t *testing.T) {
	k := "sk-proj-" + newGen(3).mixedS(alnum, 40)
	for _, tc := range []struct{ in, want string }{
		{`{"c":"` + k + `\"x"}`, `{"c":"[REDACTED:openai_key]\"x"}`},
		{`{"c":"a\n` + k + `\nb"}`, `{"c":"a\n[REDACTED:openai_key]\nb"}`},
		{`{"c":"a\tAPI_KEY=abc\\\"def\nB=1"}`, `{"c":"a\tAPI_KEY=[REDACTED:env_secret]\nB=1"}`},
		{`{"c":"x\nAPI_KEY=\"abc def\"\nB=1"}`, `{"c":"x\nAPI_KEY=\"[REDACTED:env_secret]\"\nB=1"}`},
		{`{"c":"TOKEN=abc"}`, `{"c":"TOKEN=[REDACTED:env_secret]"}`},
		{`{"c":"-----BEGIN RSA PRIVATE KEY-----\nMIIabc"}`, `{"c":"[REDACTED:private_key]"}`},
		{"API_KEY=\"abc def\"\n", "API_KEY=\"[REDACTED:env_secret]\"\n"},
		{"PRIVATE_KEY=\"-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\"", "PRIVATE_KEY=\"[REDACTED:private_key]\""},
	} {
		out, _ := audit.MaskSecrets([]byte(tc.in))
		if string(out) != tc.want {
			t.Errorf("MaskSecrets(%s)\n got %s\nwant %s", tc.in, out, tc.want)
		}
	}
}

func FuzzMaskSecrets(f *testing.F) {
	for _, c := range corpus()[:60] {
		f.Add(c.text)
		f.Add(string(mustJSON(f, c.text)))
	}
	for _, s := range lookAlikes()[:40] {
		f.Add(s)
	}
	f.Add(`{"c":"API_KEY=\"x\\\"y\"\n"}`)
	f.Add(`{"SecretAccessKey": "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/+Ab"}`)
	r := corpusRedactor()
	f.Fuzz(func(t *testing.T, s string) {
		in := []byte(s)
		orig := append([]byte(nil), in...)
		for _, mask := range []func([]byte) ([]byte, int){audit.MaskSecrets, r.MaskSecrets} {
			out, n := mask(in)
			if !bytes.Equal(in, orig) {
				t.Fatal("input changed")
			}
			if n == 0 && !bytes.Equal(out, in) {
				t.Fatalf("nothing found, yet changed: %q", out)
			}
			if json.Valid(in) && !json.Valid(out) {
				t.Fatalf("valid JSON %q masked to invalid %q", in, out)
			}
			again, n2 := mask(out)
			if n2 != 0 || !bytes.Equal(again, out) {
				t.Fatalf("not idempotent: %q -> %q -> %q (%d)", in, out, again, n2)
			}
		}
	})
}

// benchText is ordinary agent traffic: prose and code, with the '=', ':'
// and '-' of code and JSON, and no secret.
const benchText = `The function reads the config file and returns the settings; see the tests for examples.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) error {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second) // bounded
	defer cancel()
	n := len(s.items) - 1
	if err := s.store.Save(ctx, key, value); err != nil { return fmt.Errorf("save: %w", err) }
}
- item one: the agent's plan, step by step, with a few hyphenated-words and x-y-z flags
`

// benchChat returns a chat body of about size bytes whose user message is
// text repeated, with extra appended to it.
func benchChat(size int, text, extra string) []byte {
	var sb strings.Builder
	for sb.Len() < size-200-len(extra) {
		sb.WriteString(text)
	}
	sb.WriteString(extra)
	b, _ := json.Marshal(map[string]any{"model": "openai/gpt-4o-mini", "messages": []map[string]string{
		{"role": "system", "content": "be brief"}, {"role": "user", "content": sb.String()}}})
	return b
}

func BenchmarkMaskSecrets(b *testing.B) {
	var secrets strings.Builder
	for _, c := range corpus()[:40] {
		secrets.WriteString(c.text + "\n")
	}
	r := corpusRedactor()
	for _, bc := range []struct {
		name string
		body []byte
	}{
		{"64KiB/code", benchChat(64<<10, benchText, "")},
		{"64KiB/a_a", benchChat(64<<10, "a ", "")},
		{"64KiB/code+secrets", benchChat(64<<10, benchText, secrets.String())},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.body)))
			b.ReportAllocs()
			for b.Loop() {
				_, _ = r.MaskSecrets(bc.body)
			}
		})
	}
}
