// Package vmodels holds the declarative shape of virtual models (aliases
// that map one model name to targets, or access policies) and failover
// routes, and checks that shape where configuration is decoded. Whether
// the providers and models they name exist is checked when they are put
// into service, not here.
package vmodels

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

// Strategy is how a virtual model picks among its targets.
type Strategy string

// Strategies.
const (
	// StrategyRoundRobin picks targets in weighted turns: a target of
	// weight w takes w of every sum-of-weights picks. It is the default.
	StrategyRoundRobin Strategy = "round_robin"
	// StrategyCost picks the cheapest priced target by input plus output
	// price.
	StrategyCost Strategy = "cost"
)

// MinSlowdown and MaxSlowdown bound a non-zero Slowdown.
const (
	MinSlowdown = 0.1
	MaxSlowdown = 10
)

// Target is one model a virtual model may send a request to.
type Target struct {
	// Provider is the provider instance name that serves the target.
	Provider string `json:"provider" yaml:"provider"`
	// Model is the model id on that provider.
	Model string `json:"model" yaml:"model"`
	// Weight is the target's share under round_robin: a positive number
	// up to MaxWeight; 0 (absent) counts as 1.
	Weight float64 `json:"weight,omitempty" yaml:"weight,omitempty"`
}

// Share is the weight round robin counts for t: Weight, or 1 when it is
// absent (0).
func (t Target) Share() float64 {
	if t.Weight == 0 {
		return 1
	}
	return t.Weight
}

// MaxWeight is the largest target weight. Round robin adds the weights of
// the available targets on every pick; without a bound two weights near
// the float64 maximum add up to +Inf and the rotation sticks to one
// target.
const MaxWeight = 1e6

// VirtualModel is one declarative row: with Targets it redirects Source
// to them; without Targets it is an access policy for the models Source
// selects.
type VirtualModel struct {
	// Source is the model name callers use (with targets), or the
	// selector a policy applies to: "provider/model", "provider/*",
	// "model" or "*". Rows are identified by Source.
	Source string `json:"source" yaml:"source"`
	// Model is the model name the row is listed under, when it differs
	// from Source.
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// ProviderName is the provider name the row is listed under.
	ProviderName string `json:"provider_name,omitempty" yaml:"provider_name,omitempty"`
	// Description is free text shown in the dashboard.
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// Enabled switches the row; false disables the models it selects
	// (403 model_access_denied). Absent means true.
	Enabled *bool `json:"enabled,omitempty" yaml:"enabled,omitempty"`
	// Strategy picks among Targets: round_robin (default) or cost.
	Strategy Strategy `json:"strategy,omitempty" yaml:"strategy,omitempty"`
	// Targets are the models Source is redirected to, in order (the first
	// is used when every target is saturated).
	Targets []Target `json:"targets,omitempty" yaml:"targets,omitempty"`
	// UserPaths restricts the row to callers under these user paths
	// (each normalized by userpath.Normalize); empty means every caller.
	UserPaths []string `json:"user_paths,omitempty" yaml:"user_paths,omitempty"`
	// SessionAffinity keeps a detected session on the target that served
	// it while that target stays available. Absent means true.
	SessionAffinity *bool `json:"session_affinity,omitempty" yaml:"session_affinity,omitempty"`
	// Slowdown delays the answer by this factor times the upstream's own
	// time: 0 disables it, otherwise 0.1 to 10. Absent leaves it unset so
	// an alias can inherit its target's.
	Slowdown *float64 `json:"slowdown,omitempty" yaml:"slowdown,omitempty"`
}

// Validate checks the row's shape and normalizes its user paths in place.
// Errors name the field ("targets[1].weight: must be positive").
func (v *VirtualModel) Validate() error {
	if err := checkSelector(v.Source, true); err != nil {
		return apierr.Field("source", err)
	}
	if len(v.Targets) > 0 && len(v.Source) > catalog.MaxModelIDLen {
		// Clients name a virtual model as a model, and the model
		// endpoints refuse a model longer than that.
		return apierr.FieldMsg("source", fmt.Sprintf("a row with targets is a model name, at most %d bytes long (this one is %d)", catalog.MaxModelIDLen, len(v.Source)))
	}
	if len(v.Targets) > 0 && strings.Contains(v.Source, "*") {
		// A virtual model is found by the exact name a client sends: a
		// wildcard there would redirect nothing but the name "*".
		return apierr.FieldMsg("source", fmt.Sprintf("%q: a row with targets needs a model name; wildcards select models only in access policies (rows without targets)", v.Source))
	}
	switch v.Strategy {
	case "", StrategyRoundRobin, StrategyCost:
	default:
		return apierr.FieldMsg("strategy", fmt.Sprintf("%q is not one of round_robin, cost", v.Strategy))
	}
	for i, t := range v.Targets {
		at := fmt.Sprintf("targets[%d]", i)
		if err := checkName(t.Provider); err != nil {
			return apierr.Field(at+".provider", err)
		}
		if strings.Contains(t.Provider, "/") {
			return apierr.FieldMsg(at+".provider", fmt.Sprintf("%q must not contain /", t.Provider))
		}
		if err := checkName(t.Model); err != nil {
			return apierr.Field(at+".model", err)
		}
		// A target's model is what requests are served and recorded as:
		// held to the bound of every model id.
		if err := catalog.CheckModelID(t.Model); err != nil {
			return apierr.Field(at+".model", err)
		}
		if !(t.Weight >= 0 && t.Weight <= MaxWeight) {
			return apierr.FieldMsg(at+".weight", "must be a positive number up to 1000000 (absent means 1)")
		}
	}
	for i, p := range v.UserPaths {
		n, err := userpath.Normalize(p)
		if err != nil || strings.TrimSpace(p) == "" {
			if err == nil {
				err = fmt.Errorf("must not be empty")
			}
			return apierr.Field(fmt.Sprintf("user_paths[%d]", i), err)
		}
		v.UserPaths[i] = n
	}
	if s := v.Slowdown; s != nil && *s != 0 && !(*s >= MinSlowdown && *s <= MaxSlowdown) {
		return apierr.FieldMsg("slowdown", fmt.Sprintf("%v is neither 0 nor between %v and %v", *s, MinSlowdown, MaxSlowdown))
	}
	return nil
}

// MaxNameLen is the longest model selector, provider or model name a
// virtual model or failover route may hold, in bytes, the same bound as a
// user path's (userpath.MaxLen). Selectors are storage keys, and the
// embedded store refuses keys over 32 KiB: a longer one must be a 400,
// not a failed write.
const MaxNameLen = userpath.MaxLen

// checkName refuses an empty name, one longer than MaxNameLen, or one with
// white space or control characters.
func checkName(s string) error {
	if s == "" {
		return fmt.Errorf("missing")
	}
	if len(s) > MaxNameLen {
		return fmt.Errorf("is longer than %d bytes", MaxNameLen)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("%q contains white space or a control character", s)
		}
	}
	return nil
}

// checkSelector checks a model selector: "provider/model" or "model";
// with wildcards also "provider/*" and "*".
func checkSelector(s string, wildcards bool) error {
	if err := checkName(s); err != nil {
		return err
	}
	if strings.HasPrefix(s, "/") || strings.HasSuffix(s, "/") {
		return fmt.Errorf("%q must be provider/model or model", s)
	}
	if !wildcards && strings.Contains(s, "*") {
		return fmt.Errorf("%q: wildcards are not allowed here", s)
	}
	return nil
}
