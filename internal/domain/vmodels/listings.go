package vmodels

import (
	"fmt"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Listings tells which models the providers list (providers.Registry).
type Listings interface {
	// Lists reports whether provider lists model; known is false while
	// the provider's list is not known (its listing has not come yet).
	Lists(provider, model string) (listed, known bool)
}

// checkListed checks the targets of v, a row of snapshot t, against the
// providers' listings: a target whose provider's list is known and lacks
// its model is an error naming the target; unverified tells of each
// target whose provider's list is not known yet. A target that is itself
// a virtual model (a chain) is not a provider model and is not checked.
// Without Listings nothing is checked.
func (s *Service) checkListed(v VirtualModel, t *table) (unverified []string, err error) {
	if s.opts.Listings == nil {
		return nil, nil
	}
	for i, tg := range v.Targets {
		if t != nil && t.aliases[tg.Provider+"/"+tg.Model] != nil {
			continue
		}
		listed, known := s.opts.Listings.Lists(tg.Provider, tg.Model)
		switch {
		case !known:
			unverified = append(unverified, fmt.Sprintf("targets[%d]: provider %q has not listed its models yet, so model %q "+
				"is not checked; were it not served there, the requests sent to this target would fail", i, tg.Provider, tg.Model))
		case !listed:
			return nil, apierr.FieldMsg(fmt.Sprintf("targets[%d].model", i),
				fmt.Sprintf("provider %q does not list model %q (see GET /v1/models)", tg.Provider, tg.Model))
		}
	}
	return unverified, nil
}

// Unverified returns what Put could not check of row v in force: one
// warning for each target whose provider has not listed its models yet.
func (s *Service) Unverified(v VirtualModel) []string {
	u, _ := s.checkListed(v, s.snap.Load())
	return u
}

// UnlistedManaged returns a warning for each target of the
// configuration's rows whose provider lists its models and not the
// target's: such a target fails every request sent to it. Rows from
// configuration are put in force all the same (the listing may change);
// the caller logs the warnings.
func (s *Service) UnlistedManaged() []string {
	t := s.snap.Load()
	var out []string
	for _, v := range s.opts.Managed {
		if _, err := s.checkListed(v, t); err != nil {
			out = append(out, (&RowError{Source: v.Source, Err: err}).Error()+
				"; the requests it sends there will fail")
		}
	}
	return out
}
