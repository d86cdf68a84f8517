package vmodels

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"
)

// Reload replaces the stored rows and routes in force with those of the
// storage attached by Load, so that changes written by another process
// sharing that storage take effect here; the configuration's rows and
// routes still win. A stored row that no longer fits is left out and
// reported in warnings, once: a later Reload repeats no warning while the
// warnings stay the same. When nothing changed the snapshot in force
// stays, and with it every session pin. Without storage
// it does nothing. When the storage cannot be read nothing changes and
// the error is returned.
func (s *Service) Reload() (warnings []string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.opts.Storage
	if st == nil {
		return nil, nil
	}
	rows, err := st.VirtualModels()
	if err != nil {
		return nil, fmt.Errorf("reloading virtual models: %w", err)
	}
	fo, err := st.FailoverRoutes()
	if err != nil {
		return nil, fmt.Errorf("reloading failover routes: %w", err)
	}
	prev, prevFo := s.stored, s.storedFo
	s.stored, s.storedFo = map[string]Row{}, Failover{}
	for k, v := range fo {
		if _, managed := s.opts.ManagedFailover[k]; !managed {
			s.storedFo[k] = slices.Clone(v)
		}
	}
	slices.SortFunc(rows, func(a, b Row) int {
		switch {
		case a.Source < b.Source:
			return -1
		case a.Source > b.Source:
			return 1
		}
		return 0
	})
	for _, r := range rows {
		if s.isManaged(r.Source) {
			continue
		}
		s.stored[r.Source] = r
		if _, err := build(s.rows(), s.failover(), s.opts.Providers, 0); err != nil {
			delete(s.stored, r.Source)
			warnings = append(warnings, fmt.Sprintf("stored virtual model %q left out: %v", r.Source, err))
		}
	}
	if sameRows(prev, s.stored) && sameFailover(prevFo, s.storedFo) {
		s.stored, s.storedFo = prev, prevFo
	} else if err := s.swap(); err != nil {
		s.stored, s.storedFo = prev, prevFo
		return nil, fmt.Errorf("reloading virtual models: %w", err)
	}
	if slices.Equal(warnings, s.warned) {
		return nil, nil
	}
	s.warned = warnings
	return warnings, nil
}

// sameRows reports whether a and b hold the same rows, timestamps
// compared as instants.
func sameRows(a, b map[string]Row) bool {
	return maps.EqualFunc(a, b, func(x, y Row) bool {
		return x.Managed == y.Managed && sameTime(x.CreatedAt, y.CreatedAt) &&
			sameTime(x.UpdatedAt, y.UpdatedAt) && reflect.DeepEqual(x.VirtualModel, y.VirtualModel)
	})
}

func sameTime(a, b *time.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(*b)
}

// sameFailover reports whether a and b hold the same routes.
func sameFailover(a, b Failover) bool {
	return maps.EqualFunc(a, b, slices.Equal)
}
