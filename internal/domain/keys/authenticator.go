package keys

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"sync/atomic"
)

// Refusal says why a credential was refused. Its values double as the
// error codes of the 401 answers.
type Refusal string

// Refusals.
const (
	// RefusedInvalid: the credential is neither the master key nor a
	// managed key.
	RefusedInvalid Refusal = "invalid_api_key"
	// RefusedExpired: a managed key past its expiry time.
	RefusedExpired Refusal = "api_key_expired"
	// RefusedDeactivated: a deactivated managed key.
	RefusedDeactivated Refusal = "api_key_deactivated"
)

// Result is the outcome of authenticating one credential.
type Result struct {
	// OK reports whether the credential is valid.
	OK bool
	// Refusal says why it is not, when OK is false.
	Refusal Refusal
	// Master reports whether it is the master key.
	Master bool
	// Admin reports whether it may use /admin/*: the master key, or a
	// managed key with dashboard access.
	Admin bool
	// KeyHash is the hex SHA-256 of the credential, safe to record.
	KeyHash string
	// KeyID is the managed key's id ("" for the master key).
	KeyID string
	// UserPath is the user path bound to the managed key ("" when none).
	UserPath string
}

// Authenticator checks credentials against the master key and the managed
// keys.
type Authenticator struct {
	masterHash [sha256.Size]byte
	hasMaster  bool
	keys       atomic.Pointer[Service]
}

// NewAuthenticator returns an Authenticator for masterKey ("" means no
// master key is configured). Managed keys are checked once UseKeys has
// been called.
func NewAuthenticator(masterKey string) *Authenticator {
	a := &Authenticator{}
	if masterKey != "" {
		a.masterHash, a.hasMaster = sha256.Sum256([]byte(masterKey)), true
	}
	return a
}

// UseKeys makes the Authenticator accept the managed keys of s.
func (a *Authenticator) UseKeys(s *Service) { a.keys.Store(s) }

// Required reports whether any credential exists (a master key or at least
// one managed key, in any state), so that callers must authenticate.
// Without one, model endpoints are open.
func (a *Authenticator) Required() bool {
	if a.hasMaster {
		return true
	}
	s := a.keys.Load()
	return s != nil && s.Count() > 0
}

// HasMaster reports whether a master key is configured.
func (a *Authenticator) HasMaster() bool { return a.hasMaster }

// Authenticate checks credential. Comparisons work on fixed-size SHA-256
// hashes in constant time, so their duration depends on neither the
// credential's length nor its content.
func (a *Authenticator) Authenticate(credential string) Result {
	sum := sha256.Sum256([]byte(credential))
	res := Result{KeyHash: hex.EncodeToString(sum[:]), Refusal: RefusedInvalid}
	if a.hasMaster && subtle.ConstantTimeCompare(sum[:], a.masterHash[:]) == 1 {
		res.OK, res.Refusal, res.Master, res.Admin = true, "", true, true
		return res
	}
	s := a.keys.Load()
	if s == nil {
		return res
	}
	m := s.Lookup(sum)
	if !m.Found {
		return res
	}
	res.KeyID = m.ID
	switch m.State {
	case StateActive:
		res.OK, res.Refusal = true, ""
		res.Admin, res.UserPath = m.DashboardAccess, m.UserPath
	case StateExpired:
		res.Refusal = RefusedExpired
	default:
		res.Refusal = RefusedDeactivated
	}
	return res
}
