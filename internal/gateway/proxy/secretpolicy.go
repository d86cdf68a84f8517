package proxy

import (
	"encoding/json"
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// CodeSecretInRequest is the error code of a request a secret policy
// refuses because its body holds a credential.
const CodeSecretInRequest = "secret_in_request"

// RewriterMaskSecrets names the request revision of a body whose
// credentials a secret policy masked before it was sent.
const RewriterMaskSecrets = "mask_secrets"

// applySecretPolicy applies the secret policy of the caller's user path
// to the request body on info: block refuses a body that holds a
// credential, naming its kind; mask puts the body with each credential
// replaced by [REDACTED:<kind>] on info in its place (every later stage
// and the upstream get that one) and records a revision. It returns the
// fields of the body that goes on.
func (s *Service) applySecretPolicy(info *reqinfo.Info, fields requestFields) (requestFields, error) {
	if s.SecretAction == nil {
		return fields, nil
	}
	action := s.SecretAction(info.UserPath)
	if action != audit.SecretBlock && action != audit.SecretMask {
		return fields, nil
	}
	b := info.Body()
	masked, n, kind := s.Secrets.MaskSecretsNamed(b.Bytes)
	if n == 0 {
		return fields, nil
	}
	if action == audit.SecretBlock {
		return fields, apierr.InvalidRequest(fmt.Sprintf(
			"the request holds a credential (%s); the secret policy of user path %s refuses requests that do: remove it and send again",
			kind, info.UserPath)).WithCode(CodeSecretInRequest)
	}
	info.SetBody(masked)
	detail, _ := json.Marshal(map[string]any{"masked": n, "first_kind": kind})
	info.AddRevision(reqinfo.Revision{Rewriter: RewriterMaskSecrets, Detail: detail})
	nb := info.Body()
	if nb.ScanErr != nil {
		return fields, scanError(nb.ScanErr)
	}
	return requestFields{nb.Fields}, nil
}
