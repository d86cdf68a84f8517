package budgets

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Options configure New.
type Options struct {
	// Storage persists manual budgets, settings and reset marks; nil
	// keeps them in memory only.
	Storage Storage
	// Source gives the spend of budgets that are added, switch per_child
	// or whose current period moves (including every budget at start);
	// nil starts them from no spend.
	Source SpendSource
	// Spend shares the spend with the other gateway processes that use
	// the same store (see Tracker.ShareSpend); nil keeps it in memory.
	Spend SpendStore
	// SpendTimeout bounds each call to Spend; 0 means
	// DefaultSpendTimeout.
	SpendTimeout time.Duration
	// ReservationLease is how long Spend holds a reservation never
	// settled (its process died); 0 means DefaultReservationLease.
	ReservationLease time.Duration
	// QuotaTemplates says the quota_templates entitlement is active, which
	// per_child budgets require.
	QuotaTemplates bool
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Logger receives failures to rebuild spend; nil means zap.NewNop().
	Logger *zap.Logger
}

// Service is the budgets domain: the configured and manual budgets, their
// settings and reset marks, the admin operations on them, and the Tracker
// that enforces them. It is safe for concurrent use; one Service should
// live as long as its Storage (share it across config reloads and call
// SetConfigBudgets at each load).
type Service struct {
	tr       *Tracker
	st       Storage
	src      SpendSource
	clock    func() time.Time
	log      *zap.Logger
	entitled atomic.Bool

	mu       sync.Mutex // serialises admin operations; guards the fields below
	config   map[Key]Budget
	manual   map[Key]Budget
	resets   map[Key]time.Time
	settings Settings
}

// New loads the manual budgets, settings and reset marks from
// opts.Storage and starts tracking the manual budgets, with their spend
// rebuilt from opts.Source. Configuration budgets are added by
// SetConfigBudgets.
func New(opts Options) (*Service, error) {
	s := &Service{
		tr:       NewTracker(),
		st:       opts.Storage,
		src:      opts.Source,
		clock:    opts.Now,
		log:      opts.Logger,
		config:   map[Key]Budget{},
		manual:   map[Key]Budget{},
		resets:   map[Key]time.Time{},
		settings: DefaultSettings(),
	}
	if s.clock == nil {
		s.clock = time.Now
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	s.tr.ShareSpend(opts.Spend, opts.SpendTimeout, s.log)
	s.tr.SetReservationLease(opts.ReservationLease)
	if sh := s.tr.sh; sh != nil {
		sh.recovered = s.resync
		sh.src = s.src
	}
	s.entitled.Store(opts.QuotaTemplates)
	if s.st != nil {
		if err := s.load(); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.apply(s.clock()); err != nil {
		return nil, err
	}
	return s, nil
}

// load reads the stored state.
func (s *Service) load() error {
	list, err := s.st.Budgets()
	if err != nil {
		return fmt.Errorf("budgets: loading budgets: %w", err)
	}
	for _, b := range list {
		b.Source = SourceManual
		b.LastResetAt = time.Time{}
		nb, err := b.Normalized()
		if err != nil {
			return fmt.Errorf("budgets: stored budget %s: %w", b.Key(), err)
		}
		s.manual[nb.Key()] = nb
	}
	set, ok, err := s.st.Settings()
	if err != nil {
		return fmt.Errorf("budgets: loading settings: %w", err)
	}
	if ok {
		if err := set.Validate(); err != nil {
			return fmt.Errorf("budgets: stored settings: %w", err)
		}
		s.settings = set
	}
	resets, err := s.st.Resets()
	if err != nil {
		return fmt.Errorf("budgets: loading resets: %w", err)
	}
	for k, at := range resets {
		s.resets[k] = at
	}
	return nil
}

// apply hands the effective budgets to the tracker and rebuilds the spend
// of those that start afresh. Configuration budgets shadow manual ones of
// the same key. Caller holds mu.
func (s *Service) apply(now time.Time) error {
	list := make([]Budget, 0, len(s.config)+len(s.manual))
	for _, b := range s.config {
		list = append(list, b)
	}
	for k, b := range s.manual {
		if _, shadowed := s.config[k]; !shadowed {
			list = append(list, b)
		}
	}
	for i := range list {
		list[i].LastResetAt = s.resets[list[i].Key()]
	}
	fresh, err := s.tr.Set(list, s.settings, now)
	if err != nil {
		return err
	}
	if len(fresh) > 0 {
		if err := s.tr.RebuildKeys(s.src, now, fresh); err != nil {
			s.log.Error("budgets: spend could not be rebuilt from usage records; those budgets count from zero", zap.Error(err))
		}
		if err := s.reapplyChildResets(fresh, now); err != nil {
			s.log.Error("budgets: the spend of children reset on their own could not be rebuilt", zap.Error(err))
		}
	}
	return nil
}

// Tracker returns the tracker that enforces the budgets (Check, Charge).
func (s *Service) Tracker() *Tracker { return s.tr }

// Check is Tracker().Check.
func (s *Service) Check(userPath string, now time.Time) (ok bool, retryAfter time.Duration, which *Budget) {
	return s.tr.Check(userPath, now)
}

// Reserve is Tracker().Reserve.
func (s *Service) Reserve(userPath string, amount catalog.Nanos, now time.Time) (r Reservation, ok bool, retryAfter time.Duration, which *Budget) {
	return s.tr.Reserve(userPath, amount, now)
}

// PrepareReserve is Tracker().PrepareReserve.
func (s *Service) PrepareReserve(userPath string, amount catalog.Nanos, now time.Time) *ReserveCall {
	return s.tr.PrepareReserve(userPath, amount, now)
}

// FinishReserve is Tracker().FinishReserve.
func (s *Service) FinishReserve(c *ReserveCall, made bool) (r Reservation, ok bool, retryAfter time.Duration, which *Budget) {
	return s.tr.FinishReserve(c, made)
}

// Charge is Tracker().Charge.
func (s *Service) Charge(userPath string, cost float64, at time.Time) {
	s.tr.Charge(userPath, cost, at)
}

// ChargeFor is Tracker().ChargeFor.
func (s *Service) ChargeFor(userPath string, id RequestID, cost float64, at time.Time) {
	s.tr.ChargeFor(userPath, id, cost, at)
}

// Probe is Tracker().Probe; run it periodically (ProbeEvery).
func (s *Service) Probe() { s.tr.Probe() }

// SetQuotaTemplates sets whether the quota_templates entitlement is
// active. Budgets already installed are kept.
func (s *Service) SetQuotaTemplates(entitled bool) { s.entitled.Store(entitled) }

// Rebuild recomputes the spend of every budget from the SpendSource.
func (s *Service) Rebuild() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock()
	return errors.Join(s.tr.Rebuild(s.src, now), s.reapplyChildResets(nil, now))
}

// resync runs Tracker.Resync when the shared spend store answers again.
func (s *Service) resync() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.tr.Resync(s.src, s.clock()); err != nil {
		s.log.Warn("budgets: spend could not be brought back in step with the shared store", zap.Error(err))
	}
}

// SetConfigBudgets replaces the budgets seeded from configuration. They
// are checked (a per_child budget needs the entitlement), marked source
// "config", shadow manual budgets of the same key and are never stored.
// A budget whose key and amount stay keeps its created_at and updated_at
// across calls; its spend is kept unless per_child switched. Call it at
// every config load, also with no budgets.
func (s *Service) SetConfigBudgets(list []Budget) error {
	now := s.clock()
	cfg := make(map[Key]Budget, len(list))
	for _, b := range list {
		b.Source = SourceConfig
		nb, err := b.Normalized()
		if err != nil {
			return originError(b.Origin, err)
		}
		if err := CheckEntitlement([]Budget{nb}, s.entitled.Load()); err != nil {
			return err
		}
		k := nb.Key()
		if other, dup := cfg[k]; dup {
			return originError(nb.Origin, fmt.Errorf("%w: %s is also defined by %s", ErrInvalidBudget, k, other.Origin))
		}
		cfg[k] = nb
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, b := range cfg {
		b.CreatedAt, b.UpdatedAt = now, now
		if old, ok := s.config[k]; ok {
			b.CreatedAt = old.CreatedAt
			if old.Amount == b.Amount && old.PerChild == b.PerChild {
				b.UpdatedAt = old.UpdatedAt
			}
		}
		cfg[k] = b
	}
	s.config = cfg
	return s.apply(now)
}

// originError prefixes err with where a configuration budget was defined.
func originError(origin string, err error) error {
	if origin == "" {
		return err
	}
	return fmt.Errorf("%s: %w", origin, err)
}

// List returns the admin view of every budget (see Tracker.List).
func (s *Service) List() []Entry { return s.tr.List(s.clock()) }

// Children returns the children with spend of template k (see
// Tracker.Children).
func (s *Service) Children(k Key) ([]Entry, error) {
	k, err := NormalizeKey(k)
	if err != nil {
		return nil, err
	}
	return s.tr.Children(k, s.clock())
}

// For returns the budgets covering a caller on userPath, with the
// caller's spend (see Tracker.For): the budgets of GET /v1/usage.
func (s *Service) For(userPath string) []Entry { return s.tr.For(userPath, s.clock()) }

// Put creates or updates the manual budget k with amount and perChild and
// returns its entry. Editing the amount keeps the spend; switching
// per_child or creating the budget computes it from the SpendSource.
// Errors: ErrInvalidBudget (bad path, period or amount),
// ErrTemplatesNotEntitled, ErrReadOnly (a configuration budget has that
// key), or a storage failure (nothing changed then).
func (s *Service) Put(k Key, amount float64, perChild bool) (Entry, error) {
	k, err := NormalizeKey(k)
	if err != nil {
		return Entry{}, err
	}
	if err := checkAmount(amount); err != nil {
		return Entry{}, err
	}
	if perChild && !s.entitled.Load() {
		return Entry{}, fmt.Errorf("%s: per_child: %w", k, ErrTemplatesNotEntitled)
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.config[k]; ok {
		return Entry{}, fmt.Errorf("%w: %s", ErrReadOnly, k)
	}
	b, ok := s.manual[k]
	if !ok {
		b = Budget{UserPath: k.UserPath, Period: k.Period, Source: SourceManual, CreatedAt: now}
	}
	b.Amount, b.PerChild, b.UpdatedAt = amount, perChild, now
	if s.st != nil {
		if err := s.st.PutBudget(b); err != nil {
			return Entry{}, fmt.Errorf("budgets: storing %s: %w", k, err)
		}
	}
	s.manual[k] = b
	if err := s.apply(now); err != nil {
		return Entry{}, err
	}
	return s.tr.Entry(k, now)
}

// Delete removes the manual budget k, its spend and its reset mark.
// Errors: ErrNotFound, ErrReadOnly (a configuration budget), or a storage
// failure (nothing changed then).
func (s *Service) Delete(k Key) error {
	k, err := NormalizeKey(k)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.config[k]; ok {
		return fmt.Errorf("%w: %s", ErrReadOnly, k)
	}
	if _, ok := s.manual[k]; !ok {
		return notFound(k)
	}
	if s.st != nil {
		if err := s.st.DeleteBudget(k); err != nil {
			return fmt.Errorf("budgets: deleting %s: %w", k, err)
		}
	}
	delete(s.manual, k)
	delete(s.resets, k)
	return s.apply(s.clock())
}

// ResetOne sets the last reset of budget k (manual or configuration) to
// now, which clears its spend (every child of a template), and returns
// its entry. A k with no budget of its own that is a direct child of a
// per_child template of the same period ("/customers/alice" under
// "/customers") resets that child only: its reset mark is stored under k
// and the entry returned is the template's as the child sees it.
// Errors: ErrNotFound, or a storage failure (nothing changed then).
func (s *Service) ResetOne(k Key) (Entry, error) {
	k, err := NormalizeKey(k)
	if err != nil {
		return Entry{}, err
	}
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.tr.Entry(k, now); err != nil {
		if e, handled, cerr := s.resetChild(k, now); handled {
			return e, cerr
		}
		return Entry{}, err
	}
	if s.st != nil {
		if err := s.st.PutResets(map[Key]time.Time{k: now}); err != nil {
			return Entry{}, fmt.Errorf("budgets: storing the reset of %s: %w", k, err)
		}
	}
	s.resets[k] = now
	if err := s.tr.Reset(k, now); err != nil {
		return Entry{}, err
	}
	return s.tr.Entry(k, now)
}

// ResetAll resets every budget now. On a storage failure nothing changes.
func (s *Service) ResetAll() error {
	now := s.clock()
	s.mu.Lock()
	defer s.mu.Unlock()
	marks := map[Key]time.Time{}
	for _, b := range s.tr.Budgets() {
		marks[b.Key()] = now
	}
	if s.st != nil && len(marks) > 0 {
		if err := s.st.PutResets(marks); err != nil {
			return fmt.Errorf("budgets: storing the resets: %w", err)
		}
	}
	for k := range marks {
		s.resets[k] = now
	}
	s.tr.ResetAll(now)
	return nil
}

// Settings returns the period anchors in use.
func (s *Service) Settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings
}

// PutSettings validates, stores and applies new anchors. They take effect
// for the current period at once: a budget whose current period moves
// gets the spend of its new period (since the later of its start and the
// last reset) from the SpendSource; the others keep their spend. Errors:
// ErrInvalidSettings, or a storage failure (nothing changed then).
func (s *Service) PutSettings(set Settings) error {
	if err := set.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st != nil {
		if err := s.st.PutSettings(set); err != nil {
			return fmt.Errorf("budgets: storing settings: %w", err)
		}
	}
	s.settings = set
	return s.apply(s.clock())
}
