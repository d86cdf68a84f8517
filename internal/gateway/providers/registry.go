package providers

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Entry is one provider instance with its configured model list.
type Entry struct {
	// Provider is the adapter.
	Provider Provider
	// Models is the configured model list: the fallback when the upstream
	// listing fails or is empty, or the whole list when Allowlist is set.
	Models []string
	// Allowlist makes Models the only models served, without asking the
	// upstream.
	Allowlist bool
}

// RegistryOptions configure NewRegistry.
type RegistryOptions struct {
	// RefreshInterval is how often each provider's listing is refreshed
	// after a successful one; 0 never. A failed listing is retried sooner,
	// with backoff (see Registry.Start).
	RefreshInterval time.Duration
	// Timeout bounds one provider's listing request.
	Timeout time.Duration
	// Logger receives listing failures; nil discards them.
	Logger *zap.Logger
}

// ListedModel is one model served by one provider instance.
type ListedModel struct {
	// Model is the upstream's entry.
	Model Model
	// Provider is the instance serving it.
	Provider Provider
}

// Registry holds the configured provider instances, in configuration order,
// and the model index built from their listings. A bare model name routes
// to the first instance (in order) that lists it.
type Registry struct {
	entries []Entry
	byName  map[string]Provider
	opts    RegistryOptions

	mu       sync.RWMutex
	listings map[string][]Model // provider name → models
	index    map[string]Provider
	listed   map[string]map[string]bool // provider name → model id set
	closed   map[string]bool            // provider name → serves only its allowlist
	// upstream says, per provider name, whether its listing is the
	// upstream's own: the last successful listing named models.
	upstream map[string]bool
	// failing says, per provider name, whether its last listing failed;
	// the map is fixed at construction.
	failing map[string]*atomic.Bool

	ready     chan struct{}
	readyOnce sync.Once
	// sleep waits d or until ctx is done, reporting whether the full d
	// passed; tests replace it to run listing schedules without waiting.
	sleep func(ctx context.Context, d time.Duration) bool
	// loops counts the running listing goroutines.
	loops sync.WaitGroup
}

// NewRegistry returns a registry of entries. Allowlisted and configured
// fallback lists are served at once; upstream listings arrive after Start.
func NewRegistry(entries []Entry, opts RegistryOptions) *Registry {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	r := &Registry{
		entries:  entries,
		byName:   make(map[string]Provider, len(entries)),
		opts:     opts,
		listings: make(map[string][]Model, len(entries)),
		closed:   make(map[string]bool, len(entries)),
		upstream: make(map[string]bool, len(entries)),
		failing:  make(map[string]*atomic.Bool, len(entries)),
		ready:    make(chan struct{}),
		sleep:    SleepCtx,
	}
	for _, e := range entries {
		r.byName[e.Provider.Name()] = e.Provider
		r.closed[e.Provider.Name()] = e.Allowlist
		r.failing[e.Provider.Name()] = new(atomic.Bool)
		r.listings[e.Provider.Name()] = configured(e.Models)
	}
	r.rebuildIndex()
	return r
}

func configured(ids []string) []Model {
	out := make([]Model, 0, len(ids))
	for _, id := range ids {
		out = append(out, Model{ID: id})
	}
	return out
}

// Providers returns the instances in configuration order.
func (r *Registry) Providers() []Provider {
	out := make([]Provider, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.Provider
	}
	return out
}

// Provider returns the instance with the given name.
func (r *Registry) Provider(name string) (Provider, bool) {
	p, ok := r.byName[name]
	return p, ok
}

// ListingFailed reports whether the last model listing of the named
// provider failed (false before its first listing and for unknown names).
// Virtual models skip such a provider's targets while others are
// available.
func (r *Registry) ListingFailed(name string) bool {
	f := r.failing[name]
	return f != nil && f.Load()
}

// Lists reports whether the named provider lists model, and whether its
// list is known at all: a provider that serves only its allowlist knows
// its list from the start; another once an upstream listing named models
// (a later listing that fails keeps it). Before that (the configured
// models stand in for a listing that has not come, failed or was empty)
// known is false: the upstream may serve models the gateway cannot name.
// An unknown provider name is neither listed nor known.
func (r *Registry) Lists(provider, model string) (listed, known bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if _, ok := r.byName[provider]; !ok {
		return false, false
	}
	return r.listed[provider][model], r.closed[provider] || r.upstream[provider]
}

// Ready is closed once the first round of listings has finished.
func (r *Registry) Ready() <-chan struct{} { return r.ready }

func (r *Registry) rebuildIndex() {
	r.mu.Lock()
	defer r.mu.Unlock()
	index := make(map[string]Provider)
	listed := make(map[string]map[string]bool, len(r.entries))
	for _, e := range r.entries {
		set := make(map[string]bool)
		for _, m := range r.listings[e.Provider.Name()] {
			set[m.ID] = true
			if _, taken := index[m.ID]; !taken {
				index[m.ID] = e.Provider
			}
		}
		listed[e.Provider.Name()] = set
	}
	r.index, r.listed = index, listed
}

// Models returns every served model, provider by provider in
// configuration order.
func (r *Registry) Models() []ListedModel {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []ListedModel
	for _, e := range r.entries {
		for _, m := range r.listings[e.Provider.Name()] {
			out = append(out, ListedModel{Model: m, Provider: e.Provider})
		}
	}
	return out
}

// ErrUnknownModel is returned by Resolve for a model no provider serves.
type ErrUnknownModel struct{ Model string }

func (e *ErrUnknownModel) Error() string {
	return fmt.Sprintf("model %q is not served by any configured provider", e.Model)
}

// Resolve maps a client's model string to a provider and the model id to
// send upstream. Model ids may themselves contain slashes
// ("openai/gpt-oss-20b" on Groq), so "name/rest" is read, in this order, as
// instance name's listed model rest; as a listed id of its own (first
// provider in order); as instance name's unlisted model rest, unless that
// instance serves only its allowlist.
// While the first listings are still arriving, an unknown name waits for
// them (bounded by ctx) before it is refused.
func (r *Registry) Resolve(ctx context.Context, model string) (Provider, string, error) {
	if p, m, ok := r.lookup(model); ok {
		return p, m, nil
	}
	select {
	case <-r.ready:
	case <-ctx.Done():
		return nil, "", ctx.Err()
	}
	if p, m, ok := r.lookup(model); ok {
		return p, m, nil
	}
	return nil, "", &ErrUnknownModel{Model: model}
}

// Selector returns the shortest model string that routes to model id on
// provider p: the bare id when it resolves there, else "name/id" (the id is
// served first by another provider, or its prefix names another instance).
func (r *Registry) Selector(p Provider, id string) string {
	if q, m, ok := r.lookup(id); ok && q == p && m == id {
		return id
	}
	return p.Name() + "/" + id
}

func (r *Registry) lookup(model string) (Provider, string, bool) {
	name, rest, prefixed := strings.Cut(model, "/")
	named, isName := r.byName[name]
	prefixed = prefixed && rest != "" && isName
	r.mu.RLock()
	defer r.mu.RUnlock()
	if prefixed && r.listed[name][rest] {
		return named, rest, true
	}
	if p, ok := r.index[model]; ok {
		return p, model, true
	}
	if prefixed && !r.closed[name] {
		return named, rest, true
	}
	return nil, "", false
}
