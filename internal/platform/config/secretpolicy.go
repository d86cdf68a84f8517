package config

import (
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// SecretPolicy is what happens to the model requests of a user path (and
// the paths below it) whose body holds a credential.
type SecretPolicy struct {
	// UserPath is the path the policy covers, with every path below it.
	UserPath string `yaml:"user_path" json:"user_path"`
	// Action is block (refuse with 400 secret_in_request), mask (replace
	// each credential with [REDACTED:<kind>] before sending) or allow
	// (send as it is; lifts the policy of a path above).
	Action audit.SecretAction `yaml:"action" json:"action"`
}

// SecretActionFor returns the action of the policy of ps that covers
// userPath most closely (the longest path that is userPath or above
// it), or audit.SecretAllow when none does.
func SecretActionFor(ps []SecretPolicy, userPath string) audit.SecretAction {
	best, action := -1, audit.SecretAllow
	for _, p := range ps {
		if userpath.Covers(p.UserPath, userPath) && len(p.UserPath) > best {
			best, action = len(p.UserPath), p.Action
		}
	}
	return action
}

// validateSecretPolicies checks every policy's path and action, and that
// no path has two.
func validateSecretPolicies(ps []SecretPolicy) []error {
	var errs []error
	seen := map[string]bool{}
	for i, p := range ps {
		field := fmt.Sprintf("secret_policies[%d]", i)
		norm, err := userpath.Normalize(p.UserPath)
		switch {
		case p.UserPath == "":
			errs = append(errs, fmt.Errorf("%s.user_path: required", field))
		case err != nil:
			errs = append(errs, fmt.Errorf("%s.user_path: %v", field, err))
		case norm != p.UserPath:
			errs = append(errs, fmt.Errorf("%s.user_path: write it as %q", field, norm))
		case seen[p.UserPath]:
			errs = append(errs, fmt.Errorf("%s.user_path: %s has another policy", field, p.UserPath))
		}
		seen[p.UserPath] = true
		switch p.Action {
		case audit.SecretBlock, audit.SecretMask, audit.SecretAllow:
		default:
			errs = append(errs, fmt.Errorf("%s.action: %q is not one of block, mask, allow", field, p.Action))
		}
	}
	return errs
}
