package budgets

import (
	"errors"
	"fmt"
	"maps"
	"time"

	"go.uber.org/zap"
)

// Reload replaces the manual budgets, the settings and the reset marks
// with those of the storage, so that changes written by another process
// sharing it take effect here: added and changed budgets, deleted ones,
// new period anchors, and resets (a budget reset elsewhere has its spend
// cleared here too). Configuration budgets stay. A stored budget that does
// not validate is left out and logged. Without storage it does nothing;
// when the storage cannot be read nothing changes and the error is
// returned.
func (s *Service) Reload() error {
	if s.st == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	list, err := s.st.Budgets()
	if err != nil {
		return fmt.Errorf("budgets: reloading budgets: %w", err)
	}
	set, ok, err := s.st.Settings()
	if err != nil {
		return fmt.Errorf("budgets: reloading settings: %w", err)
	}
	resets, err := s.st.Resets()
	if err != nil {
		return fmt.Errorf("budgets: reloading resets: %w", err)
	}
	manual := make(map[Key]Budget, len(list))
	for _, b := range list {
		b.Source = SourceManual
		b.LastResetAt = time.Time{}
		nb, err := b.Normalized()
		if err != nil {
			s.log.Warn("budgets: a stored budget is left out", zap.String("budget", b.Key().String()), zap.Error(err))
			continue
		}
		manual[nb.Key()] = nb
	}
	if !ok {
		set = s.settings
	} else if err := set.Validate(); err != nil {
		s.log.Warn("budgets: the stored settings are not valid; keeping those in force", zap.Error(err))
		set = s.settings
	}
	if resets == nil {
		resets = map[Key]time.Time{}
	}
	var newer []Key
	for k, at := range resets {
		if at.After(s.resets[k]) {
			newer = append(newer, k)
		}
	}
	if len(newer) == 0 && set == s.settings && sameBudgets(manual, s.manual) &&
		maps.EqualFunc(resets, s.resets, time.Time.Equal) {
		return nil
	}
	prevManual, prevSettings, prevResets := s.manual, s.settings, s.resets
	s.manual, s.settings, s.resets = manual, set, resets
	if err := s.apply(s.clock()); err != nil {
		s.manual, s.settings, s.resets = prevManual, prevSettings, prevResets
		return fmt.Errorf("budgets: reloading: %w", err)
	}
	for _, k := range newer {
		if err := s.tr.Reset(k, resets[k]); err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("budgets: reloading the reset of %s: %w", k, err)
		}
	}
	return nil
}

// sameBudgets reports whether a and b hold the same budgets, times
// compared as instants.
func sameBudgets(a, b map[Key]Budget) bool {
	return maps.EqualFunc(a, b, func(x, y Budget) bool {
		return x.CreatedAt.Equal(y.CreatedAt) && x.UpdatedAt.Equal(y.UpdatedAt) &&
			x.LastResetAt.Equal(y.LastResetAt) &&
			x.UserPath == y.UserPath && x.Period == y.Period && x.Amount == y.Amount &&
			x.PerChild == y.PerChild && x.Source == y.Source && x.Origin == y.Origin
	})
}
