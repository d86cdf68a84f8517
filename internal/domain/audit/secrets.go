package audit

import (
	"bytes"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/keys"
)

// Kinds of secret MaskSecrets recognizes: each masked value is replaced by
// "[REDACTED:<kind>]".
const (
	// SecretOpenAIKey: sk-… (sk-proj-…, sk-svcacct-…, legacy sk-…), 20 or
	// more key characters of mixed case with a digit.
	SecretOpenAIKey = "openai_key"
	// SecretAnthropicKey: sk-ant-… with 20 or more key characters.
	SecretAnthropicKey = "anthropic_key"
	// SecretXAIKey: xai-… with 20 or more letters and digits of mixed case
	// with a digit.
	SecretXAIKey = "xai_key"
	// SecretGroqKey: gsk_… with 20 or more letters and digits.
	SecretGroqKey = "groq_key"
	// SecretGoogleAPIKey: AIza… with 30 or more key characters.
	SecretGoogleAPIKey = "google_api_key"
	// SecretGatewayKey: a managed key (keys.KeyPrefix and 32 base62
	// characters, whether or not it exists) or the master key.
	SecretGatewayKey = "gateway_key"
	// SecretProviderKey: a provider key from the configuration whose shape
	// none of the other kinds has.
	SecretProviderKey = "provider_key"
	// SecretAWSAccessKey: AKIA, ASIA, ABIA or ACCA and 16 upper-case
	// letters and digits.
	SecretAWSAccessKey = "aws_access_key"
	// SecretAWSSecretKey: 40 base64 characters after a name holding
	// "secret_access_key" (or SecretAccessKey, secret-access-key) and "="
	// or ":".
	SecretAWSSecretKey = "aws_secret_key"
	// SecretGitHubToken: ghp_, gho_, ghu_, ghs_ or ghr_ and 30 or more
	// letters and digits, or github_pat_….
	SecretGitHubToken = "github_token"
	// SecretGitLabToken: glpat-, gldt-, glrt-, glptt-, glsoat-, glcbt- or
	// glft- and 20 or more token characters.
	SecretGitLabToken = "gitlab_token"
	// SecretSlackToken: xoxb-, xoxp-, xoxa-, xoxo-, xoxr-, xoxs-, xoxe- or
	// xapp- tokens, and hooks.slack.com webhook paths.
	SecretSlackToken = "slack_token"
	// SecretJWT: three base64url parts joined by dots, the first starting
	// with eyJ (a JSON object).
	SecretJWT = "jwt"
	// SecretPrivateKey: a PEM block -----BEGIN … PRIVATE KEY----- (RSA, EC,
	// DSA, OPENSSH, ENCRYPTED, PGP … BLOCK) up to its END line.
	SecretPrivateKey = "private_key"
	// SecretEnv: the value of a NAME=value line in .env style whose NAME
	// ends in KEY, SECRET, TOKEN or PASSWORD (see envName).
	SecretEnv = "env_secret"
)

// SecretKinds lists every kind MaskSecrets names, in the order of the
// constants above.
var SecretKinds = []string{
	SecretOpenAIKey, SecretAnthropicKey, SecretXAIKey, SecretGroqKey, SecretGoogleAPIKey,
	SecretGatewayKey, SecretProviderKey, SecretAWSAccessKey, SecretAWSSecretKey,
	SecretGitHubToken, SecretGitLabToken, SecretSlackToken, SecretJWT, SecretPrivateKey, SecretEnv,
}

// secretKind indexes SecretKinds.
type secretKind uint8

const (
	kOpenAI secretKind = iota
	kAnthropic
	kXAI
	kGroq
	kGoogle
	kGateway
	kProvider
	kAWSAccess
	kAWSSecret
	kGitHub
	kGitLab
	kSlack
	kJWT
	kPrivateKey
	kEnv
)

// placeholders holds "[REDACTED:<kind>]" for each kind.
var placeholders = func() [][]byte {
	p := make([][]byte, len(SecretKinds))
	for i, k := range SecretKinds {
		p[i] = []byte("[REDACTED:" + k + "]")
	}
	return p
}()

// Character classes of the scanner.
const (
	cAlnum  = 1 << iota // A-Z a-z 0-9
	cURL                // base64url and key bodies: alnum - _
	cB64                // base64: alnum + /
	cIdent              // identifiers: alnum _
	cUpper              // A-Z
	cLower              // a-z
	cDigit              // 0-9
	cHeader             // PEM header words: A-Z 0-9 space
)

var cls = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		var v uint8
		switch {
		case c >= 'A' && c <= 'Z':
			v = cAlnum | cURL | cB64 | cIdent | cUpper | cHeader
		case c >= 'a' && c <= 'z':
			v = cAlnum | cURL | cB64 | cIdent | cLower
		case c >= '0' && c <= '9':
			v = cAlnum | cURL | cB64 | cIdent | cDigit | cHeader
		case c == '-':
			v = cURL
		case c == '_':
			v = cURL | cIdent
		case c == '/' || c == '+':
			v = cB64
		case c == ' ':
			v = cHeader
		}
		t[c] = v
	}
	return t
}()

// Trigger bytes: where the scanner stops to look. Secrets of a known
// shape are anchored on a rare byte of their prefix rather than on its
// first letter, so that prose, which is mostly lower-case letters and
// spaces, is passed over eight bytes at a time: '-' (sk-, xai-, xox?-,
// xapp-, gl…-, -----BEGIN), '_' (gsk_, gh?_, github_pat_, sk_mg_), 'A'
// (AIza, AKIA and the other AWS prefixes), 'J' (the eyJ of a JWT), ':'
// (secret_access_key: and https://hooks.slack.com/) and '=' (NAME=value).
// A configured secret is anchored on its rarest byte (see anchorOf).
const (
	tShape = 1 << iota // anchors a secret of a known shape
	tKnown             // anchors a configured secret
	tEq                // '=' of NAME=value
	tColon             // ':' after secret_access_key or https
)

// baseTriggers are the trigger bytes without configured secrets.
var baseTriggers = func() (t [256]uint8) {
	for _, c := range "-_AJ" {
		t[c] |= tShape
	}
	t['='] |= tEq
	t[':'] |= tColon
	return t
}()

// knownSecret is a secret given in clear (the master key, a provider key)
// looked for by value, anchored on value[anchor].
type knownSecret struct {
	value  []byte
	anchor int
	kind   secretKind
}

// bodySecrets is the part of a Redactor that masks bodies: the configured
// secrets, by value, and the trigger table they extend.
type bodySecrets struct {
	known    []knownSecret
	triggers [256]uint8
}

// newBodySecrets returns the body masker for the master key own and the
// provider keys providers. A configured secret is looked for by value when
// it is at least MinSecretLen bytes of printable ASCII without quotes or
// backslashes (which a JSON body would carry escaped), starts with a
// letter or digit and is not all digits and signs (it could then be part
// of a JSON number).
func newBodySecrets(providers []string, own []string) *bodySecrets {
	s := &bodySecrets{triggers: baseTriggers}
	seen := map[string]bool{}
	add := func(v string, k secretKind) {
		if len(v) < MinSecretLen || seen[v] || cls[v[0]]&cAlnum == 0 {
			return
		}
		word := false // holds a byte no JSON number or literal has
		for i := 0; i < len(v); i++ {
			if v[i] < 0x21 || v[i] > 0x7e || v[i] == '"' || v[i] == '\\' {
				return
			}
			word = word || strings.IndexByte("0123456789.-+eE", v[i]) < 0
		}
		if !word {
			return
		}
		seen[v] = true
		at := anchorOf(v)
		s.known = append(s.known, knownSecret{value: []byte(v), anchor: at, kind: k})
		s.triggers[v[at]] |= tKnown
	}
	for _, v := range own {
		add(v, kGateway)
	}
	for _, v := range providers {
		k := kProvider
		if end, sk, ok := shapeAt([]byte(v), 0); ok && end == len(v) {
			k = sk
		}
		add(v, k)
	}
	return s
}

// anchorOf returns the index of the byte of v least likely in ordinary
// text: punctuation before upper-case letters before digits before
// lower-case letters.
func anchorOf(v string) int {
	best, bestScore := 0, 99
	for i := 0; i < len(v); i++ {
		c := v[i]
		score := 0
		switch {
		case cls[c]&cLower != 0:
			score = 4
		case cls[c]&cDigit != 0:
			score = 3
		case cls[c]&cUpper != 0:
			score = 2
		case c == '-' || c == '_' || c == '.' || c == '/' || c == ':':
			score = 1 // common in code, but still rarer than letters
		}
		if score < bestScore {
			best, bestScore = i, score
		}
	}
	return best
}

// shapeOnly masks secrets by shape alone.
var shapeOnly = &bodySecrets{triggers: baseTriggers}

// MaskSecrets returns b with every value that looks like a credential
// replaced by "[REDACTED:<kind>]" (see SecretKinds), and how many were
// replaced. It knows no configured secret: Redactor.MaskSecrets also masks
// the master key and the provider keys of the configuration. See
// Redactor.MaskSecrets.
func MaskSecrets(b []byte) ([]byte, int) { return shapeOnly.mask(b) }

// MaskSecrets returns b with every value that looks like a credential
// replaced by "[REDACTED:<kind>]", and how many were replaced: keys of the
// shapes SecretKinds lists, the values of .env style NAME=value lines
// whose NAME names a secret, and the master key and configured provider
// keys by value. b is read as text, JSON or not: inside a JSON string, a
// secret ends at an escape (\" or \n), lines are separated by the two
// characters \n, and a replacement never crosses the string's end, so a
// valid JSON body stays valid. When nothing is found MaskSecrets returns
// b itself and allocates nothing; otherwise it returns a new slice and
// leaves b as it was. Masking its own result finds nothing more. A nil
// Redactor masks by shape only.
func (r *Redactor) MaskSecrets(b []byte) ([]byte, int) {
	out, n, _ := r.MaskSecretsNamed(b)
	return out, n
}

// MaskSecretsNamed is MaskSecrets that also names the kind of the first
// credential it masked (one of SecretKinds; "" when none).
func (r *Redactor) MaskSecretsNamed(b []byte) (out []byte, n int, first string) {
	s := shapeOnly
	if r != nil && r.body != nil {
		s = r.body
	}
	m := s.scan(b)
	out, n = m.result()
	if n > 0 {
		first = SecretKinds[m.first]
	}
	return out, n, first
}

// masked is the result being built: nil until the first secret.
type masked struct {
	src   []byte
	out   []byte
	last  int
	n     int
	first secretKind // the kind of the first secret masked
}

// put replaces src[start:end] with kind's placeholder.
func (m *masked) put(start, end int, k secretKind) {
	if m.out == nil {
		m.out = make([]byte, 0, len(m.src)+64)
		m.first = k
	}
	m.out = append(m.out, m.src[m.last:start]...)
	m.out = append(m.out, placeholders[k]...)
	m.last = end
	m.n++
}

// result returns the masked body and the count.
func (m *masked) result() ([]byte, int) {
	if m.out == nil {
		return m.src, 0
	}
	return append(m.out, m.src[m.last:]...), m.n
}

// kSkip is the kind of a span passed over unmasked (a PEM block that holds
// no private key).
const kSkip secretKind = 255

// mask is MaskSecrets with s's configured secrets.
func (s *bodySecrets) mask(b []byte) ([]byte, int) {
	m := s.scan(b)
	return m.result()
}

// scan finds and masks the secrets of b.
func (s *bodySecrets) scan(b []byte) masked {
	m := masked{src: b}
	jsonText := isJSONText(b)
	trig := &s.triggers
	n := len(b)
	for i := 0; i < n; {
		// The common case: eight bytes that anchor nothing.
		if i+8 <= n {
			w := b[i : i+8 : i+8]
			if trig[w[0]]|trig[w[1]]|trig[w[2]]|trig[w[3]]|trig[w[4]]|trig[w[5]]|trig[w[6]]|trig[w[7]] == 0 {
				i += 8
				continue
			}
		}
		t := trig[b[i]]
		if t == 0 {
			i++
			continue
		}
		if start, end, k, ok := s.at(b, i, t, jsonText); ok && start >= m.last {
			if k != kSkip {
				m.put(start, end, k)
			}
			i = end
			continue
		}
		i++
	}
	return m
}

// at matches a secret anchored on b[i], whose triggers are t.
func (s *bodySecrets) at(b []byte, i int, t uint8, jsonText bool) (start, end int, k secretKind, ok bool) {
	if t&tKnown != 0 {
		for _, ks := range s.known {
			if st := i - ks.anchor; st >= 0 && ks.value[ks.anchor] == b[i] && wordStart(b, st) {
				if end, k, ok := s.knownAt(b, st); ok {
					return st, end, k, true
				}
			}
		}
	}
	if t&tShape != 0 {
		if st := shapeStart(b, i); st >= 0 {
			if end, k, ok := shapeAt(b, st); ok {
				return st, end, k, true
			}
		}
		if b[i] == '-' {
			if end, private, ok := pemAt(b, i); ok {
				if !private {
					return i, end, kSkip, true
				}
				return i, end, kPrivateKey, true
			}
		}
	}
	if t&tEq != 0 {
		if start, end, ok := envValue(b, i, jsonText); ok {
			return start, end, s.valueKind(b, start, end), true
		}
	}
	if t&tColon != 0 {
		if start, end, ok := awsSecretAfterColon(b, i); ok {
			return start, end, kAWSSecret, true
		}
		const hook = "://hooks.slack.com/services/"
		if hasPrefix(b[i:], hook) {
			if end, k, ok := shapeAt(b, i+3); ok {
				return i + 3, end, k, true
			}
		}
	}
	return 0, 0, 0, false
}

// shapeStart returns where the secret of a known shape whose anchor is
// b[i] ('-', '_', 'A' or 'J') would start, at a word start, or -1.
func shapeStart(b []byte, i int) int {
	at := func(back int, p string) bool {
		st := i - back
		return st >= 0 && hasPrefix(b[st:], p) && wordStart(b, st)
	}
	switch b[i] {
	case '-':
		switch {
		case at(2, "sk-"):
			return i - 2
		case at(3, "xai-"):
			return i - 3
		case at(4, "xox") || at(4, "xapp-"):
			return i - 4
		}
		for back := 4; back <= 6; back++ {
			if at(back, "gl") {
				return i - back
			}
		}
	case '_':
		switch {
		case at(2, "sk_mg_"):
			return i - 2
		case at(3, "gsk_") || at(3, "gh"):
			return i - 3
		case at(6, "github_pat_"):
			return i - 6
		}
	case 'A':
		if wordStart(b, i) {
			return i
		}
	case 'J':
		if at(2, "eyJ") {
			return i - 2
		}
	}
	return -1
}

// isJSONText reports whether b looks like JSON (its first byte that is not
// white space opens an object, an array or a string): a '"' in it then
// ends a string and never opens a quoted .env value.
func isJSONText(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		case '{', '[', '"':
			return true
		}
		return false
	}
	return false
}

// wordStart reports whether b[i] starts a word: the first byte, one after
// a byte that is not a letter or digit, or one after a JSON escape of a
// control character (\n, \r, \t, \b, \f).
func wordStart(b []byte, i int) bool {
	if i == 0 || cls[b[i-1]]&cAlnum == 0 {
		return true
	}
	return escapedLetter(b, i-1)
}

// escapedLetter reports whether b[j] is the letter of a JSON escape of a
// control character.
func escapedLetter(b []byte, j int) bool {
	if j < 1 || b[j-1] != '\\' {
		return false
	}
	switch b[j] {
	case 'n', 'r', 't', 'b', 'f':
		return true
	}
	return false
}

// run returns the end of the run of bytes of class c from i.
func run(b []byte, i int, c uint8) int {
	for i < len(b) && cls[b[i]]&c != 0 {
		i++
	}
	return i
}

// mixed reports whether s holds an upper-case letter, a lower-case letter
// and a digit, as a random key does and words rarely do.
func mixed(s []byte) bool {
	var seen uint8
	for _, c := range s {
		seen |= cls[c]
	}
	return seen&(cUpper|cLower|cDigit) == cUpper|cLower|cDigit
}

// knownAt matches a configured secret at b[i], followed by a byte that is
// not a letter or digit.
func (s *bodySecrets) knownAt(b []byte, i int) (end int, k secretKind, ok bool) {
	for _, ks := range s.known {
		if bytes.HasPrefix(b[i:], ks.value) {
			end = i + len(ks.value)
			if end == len(b) || cls[b[end]]&cAlnum == 0 {
				return end, ks.kind, true
			}
		}
	}
	return 0, 0, false
}

// valueKind is the kind of the secret value b[start:end] of a NAME=value
// line: that of the key it is, when it is one, else env_secret.
func (s *bodySecrets) valueKind(b []byte, start, end int) secretKind {
	v := b[:end]
	if e, k, ok := s.knownAt(v, start); ok && e == end {
		return k
	}
	if e, k, ok := shapeAt(v, start); ok && e == end {
		return k
	}
	return kEnv
}

// shapeAt matches a secret of a known shape starting at b[i] (a word
// start).
func shapeAt(b []byte, i int) (end int, k secretKind, ok bool) {
	if i >= len(b) {
		return 0, 0, false
	}
	rest := b[i:]
	switch b[i] {
	case 's':
		switch {
		case hasPrefix(rest, "sk-ant-"):
			if j := run(b, i+7, cURL); j-(i+7) >= 20 {
				return j, kAnthropic, true
			}
		case hasPrefix(rest, keys.KeyPrefix):
			at := i + len(keys.KeyPrefix)
			if j := run(b, at, cAlnum); j-at == keys.KeyRandomLen && (j == len(b) || cls[b[j]]&cURL == 0) {
				return j, kGateway, true
			}
		case hasPrefix(rest, "sk-"):
			if j := run(b, i+3, cURL); j-(i+3) >= 20 && mixed(b[i+3:j]) {
				return j, kOpenAI, true
			}
		}
	case 'x':
		switch {
		case hasPrefix(rest, "xai-"):
			if j := run(b, i+4, cAlnum); j-(i+4) >= 20 && mixed(b[i+4:j]) {
				return j, kXAI, true
			}
		case len(rest) > 5 && hasPrefix(rest, "xox") && strings.IndexByte("abporse", rest[3]) >= 0 && rest[4] == '-':
			if j := run(b, i+5, cURL); j-(i+5) >= 10 {
				return j, kSlack, true
			}
		case hasPrefix(rest, "xapp-"):
			if j := run(b, i+5, cURL); j-(i+5) >= 10 {
				return j, kSlack, true
			}
		}
	case 'g':
		switch {
		case hasPrefix(rest, "gsk_"):
			if j := run(b, i+4, cAlnum); j-(i+4) >= 20 {
				return j, kGroq, true
			}
		case len(rest) > 4 && rest[1] == 'h' && strings.IndexByte("pousr", rest[2]) >= 0 && rest[3] == '_':
			if j := run(b, i+4, cAlnum); j-(i+4) >= 30 {
				return j, kGitHub, true
			}
		case hasPrefix(rest, "github_pat_"):
			if j := run(b, i+11, cIdent); j-(i+11) >= 22 {
				return j, kGitHub, true
			}
		case hasPrefix(rest, "gl"):
			for _, p := range [...]string{"glpat-", "gldt-", "glrt-", "glptt-", "glsoat-", "glcbt-", "glft-"} {
				if hasPrefix(rest, p) {
					if j := runDots(b, i+len(p)); j-(i+len(p)) >= 20 {
						return j, kGitLab, true
					}
					break
				}
			}
		}
	case 'A':
		switch {
		case hasPrefix(rest, "AIza"):
			if j := run(b, i+4, cURL); j-(i+4) >= 30 {
				return j, kGoogle, true
			}
		case hasPrefix(rest, "AKIA") || hasPrefix(rest, "ASIA") || hasPrefix(rest, "ABIA") || hasPrefix(rest, "ACCA"):
			j := i + 4
			for j < len(b) && cls[b[j]]&(cUpper|cDigit) != 0 {
				j++
			}
			if j-(i+4) == 16 && (j == len(b) || cls[b[j]]&cAlnum == 0) {
				return j, kAWSAccess, true
			}
		}
	case 'e':
		if hasPrefix(rest, "eyJ") {
			if j, ok := jwtAt(b, i); ok {
				return j, kJWT, true
			}
		}
	case 'h':
		const hook = "hooks.slack.com/services/"
		if hasPrefix(rest, hook) {
			j := i + len(hook)
			for j < len(b) && cls[b[j]]&cB64 != 0 && b[j] != '+' {
				j++
			}
			if j-(i+len(hook)) >= 20 {
				return j, kSlack, true
			}
		}
	}
	return 0, 0, false
}

// runDots is run over key characters and dots, as newer GitLab tokens
// have.
func runDots(b []byte, i int) int {
	for i < len(b) && (cls[b[i]]&cURL != 0 || b[i] == '.') {
		i++
	}
	return i
}

// jwtAt matches a JWT at b[i] (which starts with eyJ): a header of at
// least 10 base64url characters, a dot, a payload of at least 4, a dot and
// a signature, possibly empty.
func jwtAt(b []byte, i int) (int, bool) {
	h := run(b, i, cURL)
	if h-i < 10 || h >= len(b) || b[h] != '.' {
		return 0, false
	}
	p := run(b, h+1, cURL)
	if p-(h+1) < 4 || p >= len(b) || b[p] != '.' {
		return 0, false
	}
	return run(b, p+1, cURL), true
}

// hasPrefix is bytes.HasPrefix for a string prefix.
func hasPrefix(b []byte, p string) bool {
	return len(b) >= len(p) && string(b[:len(p)]) == p
}

// pemAt matches a PEM block at b[i]: -----BEGIN <label>----- up to the
// end of its -----END <label>----- line. private reports a private key.
// Without an END line the block ends before the first '"' that is not
// escaped (the end of the JSON string holding it) or at the end of b.
// ok is false when b[i] does not start a BEGIN line.
func pemAt(b []byte, i int) (end int, private, ok bool) {
	const begin = "-----BEGIN "
	if !hasPrefix(b[i:], begin) {
		return 0, false, false
	}
	j := i + len(begin)
	for j < len(b) && j-i < 80 && cls[b[j]]&cHeader != 0 {
		j++
	}
	label := b[i+len(begin) : j]
	if !hasPrefix(b[j:], "-----") || len(label) == 0 {
		return 0, false, false
	}
	private = bytes.HasSuffix(label, []byte("PRIVATE KEY")) || bytes.HasSuffix(label, []byte("PRIVATE KEY BLOCK"))
	j += 5
	for j < len(b) {
		switch b[j] {
		case '\\':
			if j+1 >= len(b) {
				return j, private, true
			}
			j += 2
			continue
		case '"':
			return j, private, true
		case '-':
			if hasPrefix(b[j:], "-----END ") {
				k := j + len("-----END ")
				for k < len(b) && k-j < 80 && cls[b[k]]&cHeader != 0 {
					k++
				}
				if hasPrefix(b[k:], "-----") {
					return k + 5, private, true
				}
			}
		}
		j++
	}
	return len(b), private, true
}

// envSuffixes are the endings of a NAME whose value is a secret.
var envSuffixes = [...]string{"KEY", "SECRET", "TOKEN", "PASSWORD"}

// envName reports whether name (an identifier) names a secret: it ends
// in KEY, SECRET, TOKEN or PASSWORD, and is written in upper case
// (API_KEY, APIKEY), or the ending is the whole name or follows an
// underscore or a lower-case letter in any case (password, api_key,
// apiKey, clientSecret). "monkey" and "turkey" do not name secrets.
func envName(name []byte) bool {
	for _, suf := range envSuffixes {
		if len(name) < len(suf) {
			continue
		}
		at := len(name) - len(suf)
		tail := name[at:]
		if !bytes.EqualFold(tail, []byte(suf)) {
			continue
		}
		if at == 0 || name[at-1] == '_' {
			return true
		}
		if upper(name) {
			return true
		}
		// camelCase: a lower-case letter or digit, then the ending
		// capitalized.
		if cls[name[at-1]]&(cLower|cDigit) != 0 && cls[tail[0]]&cUpper != 0 && lowerAll(tail[1:]) {
			return true
		}
	}
	return false
}

// upper reports whether name has no lower-case letter.
func upper(name []byte) bool {
	for _, c := range name {
		if cls[c]&cLower != 0 {
			return false
		}
	}
	return true
}

// lowerAll reports whether s has only lower-case letters.
func lowerAll(s []byte) bool {
	for _, c := range s {
		if cls[c]&cLower == 0 {
			return false
		}
	}
	return true
}

// maxEnvName bounds the NAME of a NAME=value line looked back for.
const maxEnvName = 64

// envValue matches the value of a NAME=value line whose '=' is b[eq]
// (spaces or tabs may surround it, as in ~/.aws/credentials). The value
// runs to the end of the line (a newline, or the two characters \n or \r
// inside JSON text), to the end of a JSON string (an unescaped '"'), and,
// unquoted, to a space or '&' (also as the escape \u0026); one in quotes (', \" in JSON text, " in
// other text) runs to its closing quote and only what is inside is masked.
// A value that is empty, already masked, or a PEM block (masked as a
// private key) is not matched.
func envValue(b []byte, eq int, jsonText bool) (start, end int, ok bool) {
	k := eq
	for k > 0 && (b[k-1] == ' ' || b[k-1] == '\t') && eq-k < 8 {
		k--
	}
	nameEnd := k
	for k > 0 && cls[b[k-1]]&cIdent != 0 && nameEnd-k < maxEnvName {
		k--
	}
	if k > 0 && cls[b[k-1]]&cIdent != 0 {
		return 0, 0, false // longer than maxEnvName
	}
	if escapedLetter(b, k) {
		k++ // the letter of \n before the name
	}
	name := b[k:nameEnd]
	if len(name) == 0 || cls[name[0]]&cDigit != 0 || !envName(name) {
		return 0, 0, false
	}
	i := eq + 1
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') && i-eq < 8 {
		i++
	}
	var quote byte
	switch {
	case i >= len(b):
		return 0, 0, false
	case b[i] == '\'':
		quote = '\''
		i++
	case b[i] == '\\' && i+1 < len(b) && b[i+1] == '"':
		quote = '\\'
		i += 2
	case b[i] == '"':
		if jsonText {
			return 0, 0, false
		}
		quote = '"'
		i++
	}
	start = i
	if hasPrefix(b[i:], "[REDACTED") || hasPrefix(b[i:], "-----BEGIN ") {
		return 0, 0, false
	}
scan:
	for i < len(b) {
		switch c := b[i]; c {
		case '\\':
			if i+1 >= len(b) {
				break scan
			}
			switch b[i+1] {
			case 'n', 'r':
				break scan
			case '"':
				if quote == '\\' {
					break scan
				}
			case 'u':
				if quote == 0 && hasPrefix(b[i:], `\u0026`) {
					break scan // '&' as encoding/json escapes it
				}
			}
			i += 2
			continue
		case '\n', '\r', '"':
			break scan
		case '\'':
			if quote == '\'' {
				break scan
			}
		case ' ', '\t', '&':
			if quote == 0 {
				break scan
			}
		}
		i++
	}
	end = min(i, len(b))
	if end <= start {
		return 0, 0, false
	}
	return start, end, true
}

// awsSecretName is the name, lower case without separators, after
// which a 40-character value is an AWS secret access key.
const awsSecretName = "secretaccesskey"

// awsSecretAfterColon matches an AWS secret access key after the ':' at
// b[colon] of a "name": value pair (YAML, JSON, also escaped inside a JSON
// string) whose name ends in secret_access_key, SecretAccessKey or
// secret-access-key: 40 base64 characters, quoted or not. The = form is
// a NAME=value line (envValue).
func awsSecretAfterColon(b []byte, colon int) (start, end int, ok bool) {
	// Back over the closing quote of the name (", \" or ') and spaces.
	k := colon
	for k > 0 && colon-k < 4 && (b[k-1] == '"' || b[k-1] == '\\' || b[k-1] == '\'' || b[k-1] == ' ') {
		k--
	}
	// The name's last len(awsSecretName) letters, separators skipped.
	want := len(awsSecretName)
	for k > 0 && want > 0 {
		c := b[k-1]
		if c == '_' || c == '-' {
			k--
			continue
		}
		if c|0x20 != awsSecretName[want-1] {
			return 0, 0, false
		}
		want--
		k--
	}
	if want > 0 {
		return 0, 0, false
	}
	i := colon + 1
	for i < len(b) && i-colon < 6 && (b[i] == ' ' || b[i] == '"' || b[i] == '\'' || b[i] == '\\') {
		if b[i] == '\\' && (i+1 >= len(b) || b[i+1] != '"') {
			break
		}
		i++
	}
	j := i
	for j < len(b) && j-i <= 40 && cls[b[j]]&cB64 != 0 {
		j++
	}
	if j-i != 40 || (j < len(b) && b[j] == '=') || !mixed(b[i:j]) {
		return 0, 0, false
	}
	return i, j, true
}
