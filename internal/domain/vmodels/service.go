package vmodels

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Errors of the admin operations.
var (
	// ErrManaged: the row or route comes from configuration and is
	// read-only to the admin API.
	ErrManaged = errors.New("managed by configuration")
	// ErrNotFound: no such row or route.
	ErrNotFound = errors.New("not found")
	// ErrInvalid wraps a row or route that fails validation, an unknown
	// provider, or a chain that would loop or be too deep.
	ErrInvalid = errors.New("invalid")
)

// Options configure Open.
type Options struct {
	// Storage holds the rows and routes written through the admin API;
	// nil keeps them in memory only.
	Storage Storage
	// Managed are the configuration's rows (YAML and VIRTUAL_MODELS,
	// already merged by source); they override stored rows.
	Managed List
	// ManagedFailover are the configuration's failover routes; they
	// override stored routes of the same primary.
	ManagedFailover Failover
	// Providers maps every configured provider instance name to its
	// provider type.
	Providers map[string]string
	// Listings tells which models the providers list: Put refuses a
	// target naming a model its provider's known list lacks. nil checks
	// no target's model.
	Listings Listings
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Service holds the virtual models and failover routes in force, resolves
// requests through them in memory and writes the admin API's changes
// through its Storage.
type Service struct {
	opts     Options
	pins     *pins
	pinStore atomic.Pointer[pinStoreRef] // shared pins (SharePins); nil: memory only

	mu       sync.Mutex // serializes writers
	stored   map[string]Row
	storedFo Failover
	gen      uint64
	snap     atomic.Pointer[table]
	// warned are the warnings of the latest Reload, not repeated while
	// they stay the same.
	warned []string
	// loaded is when the configuration's rows took effect: the creation
	// and update time a managed row carries, as it is never stored.
	loaded time.Time
}

// Check validates the configuration's rows and routes against the
// providers, as Open does, without storage: a target naming an unknown
// provider (the message lists the configured ones) or a looping or too
// deep chain is an error.
func Check(managed List, failover Failover, providers map[string]string) error {
	_, err := build(markManaged(managed, time.Time{}), failover, providers, 0)
	return err
}

// Open returns the service with the configuration's rows and routes and,
// when opts.Storage is set, the stored ones (see Load).
func Open(opts Options) (s *Service, warnings []string, err error) {
	if s, err = New(opts); err != nil {
		return nil, nil, err
	}
	if opts.Storage == nil {
		return s, nil, nil
	}
	warnings, err = s.Load(opts.Storage)
	if err != nil {
		return nil, nil, err
	}
	return s, warnings, nil
}

// New returns the service with the configuration's rows and routes in
// force and nothing stored yet; a configuration problem is an error.
// opts.Storage is ignored: Load attaches the storage.
func New(opts Options) (*Service, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	opts.Storage = nil
	s := &Service{opts: opts, pins: newPins(MaxPins, PinIdle, opts.Now), stored: map[string]Row{}, storedFo: Failover{},
		loaded: opts.Now().UTC()}
	if err := Check(opts.Managed, opts.ManagedFailover, opts.Providers); err != nil {
		return nil, err
	}
	if err := s.swap(); err != nil {
		return nil, err
	}
	return s, nil
}

// Load attaches st, puts its rows and routes in force under the
// configuration's and writes later changes there. A stored row that no
// longer fits (its provider was removed, it would loop) is left out and
// reported in warnings.
func (s *Service) Load(st Storage) (warnings []string, err error) {
	rows, err := st.VirtualModels()
	if err != nil {
		return nil, fmt.Errorf("loading virtual models: %w", err)
	}
	fo, err := st.FailoverRoutes()
	if err != nil {
		return nil, fmt.Errorf("loading failover routes: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.Storage = st
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
	for k, v := range fo {
		if _, managed := s.opts.ManagedFailover[k]; !managed {
			s.storedFo[k] = v
		}
	}
	return warnings, s.swap()
}

// markManaged returns the configuration's rows as managed rows, created
// and last updated at loaded: every row the admin API shows carries both
// timestamps.
func markManaged(l List, loaded time.Time) []Row {
	out := make([]Row, len(l))
	for i, v := range l {
		out[i] = Row{VirtualModel: v, Managed: true, CreatedAt: &loaded, UpdatedAt: &loaded}
	}
	return out
}

func (s *Service) isManaged(source string) bool {
	return slices.ContainsFunc(s.opts.Managed, func(v VirtualModel) bool { return v.Source == source })
}

// rows is every row in force: managed ones, then stored ones, by source.
func (s *Service) rows() []Row {
	out := markManaged(s.opts.Managed, s.loaded)
	for _, k := range slices.Sorted(maps.Keys(s.stored)) {
		out = append(out, s.stored[k])
	}
	slices.SortStableFunc(out, func(a, b Row) int {
		switch {
		case a.Source < b.Source:
			return -1
		case a.Source > b.Source:
			return 1
		}
		return 0
	})
	return out
}

// failover is every route in force, managed ones winning.
func (s *Service) failover() Failover {
	out := Failover{}
	maps.Copy(out, s.storedFo)
	maps.Copy(out, s.opts.ManagedFailover)
	return out
}

// swap builds and installs the snapshot of the current rows. The caller
// holds mu (or owns s).
func (s *Service) swap() error {
	s.gen++
	t, err := build(s.rows(), s.failover(), s.opts.Providers, s.gen)
	if err != nil {
		return err
	}
	s.snap.Store(t)
	return nil
}

// List returns every row in force, by source.
func (s *Service) List() []Row {
	return slices.Clone(s.snap.Load().rows)
}

// Put creates or replaces the stored row of v.Source (renaming the row of
// oldSource when set). A managed source (either one) is ErrManaged, an
// unknown oldSource ErrNotFound, a row that does not validate or would
// break routing ErrInvalid, and so is a target naming a model that its
// provider's known listing lacks (see Listings; Unverified tells which
// targets could not be checked).
func (s *Service) Put(v VirtualModel, oldSource string) (Row, error) {
	if err := v.Validate(); err != nil {
		return Row{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if oldSource == v.Source {
		oldSource = ""
	}
	for _, src := range []string{v.Source, oldSource} {
		if src != "" && s.isManaged(src) {
			return Row{}, fmt.Errorf("virtual model %q is %w", src, ErrManaged)
		}
	}
	prevOld, hadOld := s.stored[oldSource]
	if oldSource != "" && !hadOld {
		return Row{}, fmt.Errorf("virtual model %q: %w", oldSource, ErrNotFound)
	}
	now := s.opts.Now().UTC()
	r := Row{VirtualModel: v, CreatedAt: &now, UpdatedAt: &now}
	prev, had := s.stored[v.Source]
	switch {
	case had:
		r.CreatedAt = prev.CreatedAt
	case hadOld:
		r.CreatedAt = prevOld.CreatedAt
	}
	s.stored[v.Source] = r
	if oldSource != "" {
		delete(s.stored, oldSource)
	}
	undo := func() {
		delete(s.stored, v.Source)
		if had {
			s.stored[v.Source] = prev
		}
		if hadOld {
			s.stored[oldSource] = prevOld
		}
	}
	t, err := build(s.rows(), s.failover(), s.opts.Providers, 0)
	if err == nil {
		_, err = s.checkListed(v, t)
	}
	if err != nil {
		undo()
		return Row{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	if s.opts.Storage != nil {
		if err := s.opts.Storage.PutVirtualModel(r, oldSource); err != nil {
			undo()
			return Row{}, err
		}
	}
	return r, s.swap()
}

// Delete removes the stored row of source: ErrManaged for a managed row,
// ErrNotFound when there is none, ErrInvalid when another row's chain
// goes through it.
func (s *Service) Delete(source string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isManaged(source) {
		return fmt.Errorf("virtual model %q is %w", source, ErrManaged)
	}
	prev, ok := s.stored[source]
	if !ok {
		return fmt.Errorf("virtual model %q: %w", source, ErrNotFound)
	}
	delete(s.stored, source)
	if s.opts.Storage != nil {
		if err := s.opts.Storage.DeleteVirtualModel(source); err != nil {
			s.stored[source] = prev
			return err
		}
	}
	return s.swap()
}

// FailoverRoute is one failover route as the admin API shows it.
type FailoverRoute struct {
	// PrimaryModel is the model ("provider/model" or "model") whose
	// failures switch to Targets.
	PrimaryModel string `json:"primary_model"`
	// Targets are tried in order.
	Targets []string `json:"targets"`
	// Managed reports a route from configuration (read-only).
	Managed bool `json:"managed"`
}

// FailoverRoutes returns every route in force, by primary.
func (s *Service) FailoverRoutes() []FailoverRoute {
	f := s.snap.Load().failover
	out := make([]FailoverRoute, 0, len(f))
	for _, k := range sortedKeys(f) {
		_, managed := s.opts.ManagedFailover[k]
		out = append(out, FailoverRoute{PrimaryModel: k, Targets: f[k], Managed: managed})
	}
	return out
}

// PutFailover creates or replaces the stored route of primary.
func (s *Service) PutFailover(primary string, targets []string) (FailoverRoute, error) {
	if err := checkRoute(primary, targets); err != nil {
		return FailoverRoute{}, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, managed := s.opts.ManagedFailover[primary]; managed {
		return FailoverRoute{}, fmt.Errorf("failover route %q is %w", primary, ErrManaged)
	}
	if s.opts.Storage != nil {
		if err := s.opts.Storage.PutFailoverRoute(primary, targets); err != nil {
			return FailoverRoute{}, err
		}
	}
	s.storedFo[primary] = slices.Clone(targets)
	return FailoverRoute{PrimaryModel: primary, Targets: targets}, s.swap()
}

// DeleteFailover removes the stored route of primary.
func (s *Service) DeleteFailover(primary string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, managed := s.opts.ManagedFailover[primary]; managed {
		return fmt.Errorf("failover route %q is %w", primary, ErrManaged)
	}
	if _, ok := s.storedFo[primary]; !ok {
		return fmt.Errorf("failover route %q: %w", primary, ErrNotFound)
	}
	if s.opts.Storage != nil {
		if err := s.opts.Storage.DeleteFailoverRoute(primary); err != nil {
			return err
		}
	}
	delete(s.storedFo, primary)
	return s.swap()
}
