package keys

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
)

// Result is the outcome of authenticating one credential.
type Result struct {
	// OK reports whether the credential is valid.
	OK bool
	// Master reports whether it is the master key.
	Master bool
	// Admin reports whether it may use /admin/*.
	Admin bool
	// KeyHash is the hex SHA-256 of the credential, safe to record.
	KeyHash string
}

// Authenticator checks credentials against the master key.
type Authenticator struct {
	masterHash [sha256.Size]byte
	hasMaster  bool
}

// NewAuthenticator returns an Authenticator for masterKey ("" means no
// master key is configured).
func NewAuthenticator(masterKey string) *Authenticator {
	a := &Authenticator{}
	if masterKey != "" {
		a.masterHash, a.hasMaster = sha256.Sum256([]byte(masterKey)), true
	}
	return a
}

// Required reports whether any credential exists, so that callers must
// authenticate. Without one, model endpoints are open.
func (a *Authenticator) Required() bool { return a.hasMaster }

// Authenticate checks credential. The comparison hashes first, so its time
// depends on neither the key's length nor its content.
func (a *Authenticator) Authenticate(credential string) Result {
	sum := sha256.Sum256([]byte(credential))
	res := Result{KeyHash: hex.EncodeToString(sum[:])}
	if a.hasMaster && subtle.ConstantTimeCompare(sum[:], a.masterHash[:]) == 1 {
		res.OK, res.Master, res.Admin = true, true, true
	}
	return res
}
