package budgets

import "time"

// Storage persists what the budgets domain owns: manual budgets (budgets
// from configuration are never stored), the period settings and the last
// reset of every budget (configuration budgets included, so a reset
// survives a restart). Every write returns once it is durable.
type Storage interface {
	// Budgets returns every stored manual budget.
	Budgets() ([]Budget, error)
	// PutBudget stores a manual budget under its key, replacing any.
	PutBudget(b Budget) error
	// DeleteBudget removes the budget of k and its reset mark; a missing
	// key is not an error.
	DeleteBudget(k Key) error
	// Settings returns the stored settings; ok is false when none were
	// ever stored.
	Settings() (s Settings, ok bool, err error)
	// PutSettings stores the settings.
	PutSettings(s Settings) error
	// Resets returns the last reset of every budget that was ever reset.
	Resets() (map[Key]time.Time, error)
	// PutResets stores the last reset of each key in one transaction.
	PutResets(resets map[Key]time.Time) error
}

// SpendSource tells what was spent according to the persisted usage
// records, to rebuild the in-memory spend on start (and after a settings
// change moved a period). The audit domain implements it over its usage
// records and hourly aggregates.
type SpendSource interface {
	// SpendSince sums the total_cost of the usage records at or after
	// since whose user path prefix covers (see userpath.Covers), excluding response
	// cache hits and records without a price.
	//
	// With perChild false the map holds the sum under the key prefix
	// (absent means 0). With perChild true it holds one sum per direct
	// child path of prefix ("/customers/alice"; records on prefix itself
	// are not counted); a deeper path in the map is added to its direct
	// child.
	//
	// since is the later of a period start and a reset, and is not always
	// on an hour boundary (custom periods, resets): an implementation over
	// hourly aggregates must add the raw records of the partial first
	// hour. It should include every record written so far (flushing
	// queued writes first).
	SpendSince(prefix string, perChild bool, since time.Time) (map[string]float64, error)
}

// SnapshotSource is a SpendSource that can read at one snapshot of the
// usage records and tell later which records a snapshot held. With one, a
// window rebuilt from the records while the shared spend store had lost it
// remembers the snapshot (SnapshotMark), and a charge this process kept
// while the store was unreachable is handed over only when the snapshot
// did not count its request: a request is counted once.
type SnapshotSource interface {
	SpendSource
	// SpendSnapshot is SpendSince at one snapshot, with its name ("" when
	// none can be named).
	SpendSnapshot(prefix string, perChild bool, since time.Time) (spend map[string]float64, snapshot string, err error)
	// Counted returns those of ids whose usage record snapshot held.
	Counted(ids []RequestID, snapshot string) ([]RequestID, error)
}
