package audit

// SecretAction is what the gateway does with a model request whose body
// holds a credential (a value MaskSecrets would mask) before it is sent.
type SecretAction string

// Secret actions.
const (
	// SecretAllow sends the request as it is (the default).
	SecretAllow SecretAction = "allow"
	// SecretBlock refuses the request with 400 secret_in_request, naming
	// the kind of the credential; nothing is sent upstream.
	SecretBlock SecretAction = "block"
	// SecretMask replaces each credential with [REDACTED:<kind>] before
	// the request is sent, and records that as a request revision.
	SecretMask SecretAction = "mask"
)
