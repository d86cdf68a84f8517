package limits

import (
	"go.uber.org/zap"
)

// Change is an admin change made through one Engine that other processes
// sharing its stores must follow (see Options.OnChange and ApplyChange).
type Change struct {
	// Rules says the manual rules changed: reload them from the RuleStore.
	Rules bool `json:"rules,omitempty"`
	// Reset lists the rules whose windows were reset.
	Reset []Key `json:"reset,omitempty"`
	// ResetAll says every rule's windows were reset.
	ResetAll bool `json:"reset_all,omitempty"`
	// ResetChildren lists the children of templates whose windows were
	// reset on their own (Engine.ResetOne of a child path).
	ResetChildren []CounterID `json:"reset_children,omitempty"`
}

// notify hands ch to OnChange, if set.
func (e *Engine) notify(ch Change) {
	if e.onChange != nil {
		e.onChange(ch)
	}
}

// Reload re-reads the manual rules from the RuleStore and installs them,
// as another process changed them. Rules whose key stays keep their
// counters; the shared counters of removed rules are left to the process
// that removed them. Without a RuleStore it does nothing.
func (e *Engine) Reload() error {
	if e.rules == nil {
		return nil
	}
	manual, err := e.readRules()
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.manual = manual
	e.forget(e.rebuild())
	e.mu.Unlock()
	e.warnTokens()
	return nil
}

// ApplyChange follows a change made through another process: it reloads
// the rules, and clears the local windows of reset rules (the process that
// reset them cleared the shared ones). It never publishes a Change itself.
func (e *Engine) ApplyChange(ch Change) error {
	var err error
	if ch.Rules {
		err = e.Reload()
	}
	if len(ch.Reset) == 0 && !ch.ResetAll && len(ch.ResetChildren) == 0 {
		return err
	}
	e.mu.Lock()
	gen := e.newGen()
	if ch.ResetAll {
		for _, g := range e.groups {
			g.clear(gen)
		}
	}
	for _, k := range ch.Reset {
		if g := e.groups[k.Normalize()]; g != nil {
			g.clear(gen)
		}
	}
	for _, id := range ch.ResetChildren {
		e.clearChild(id, gen)
	}
	e.mu.Unlock()
	if err != nil {
		e.log.Warn("rate limits: could not reload rules changed by another process", zap.Error(err))
	}
	return err
}
