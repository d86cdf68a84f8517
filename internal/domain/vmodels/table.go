package vmodels

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// MaxChainDepth is the longest chain of virtual models a request may pass
// through (an alias whose target is another alias counts 2).
const MaxChainDepth = 8

// table is one immutable snapshot of the routing rows, swapped whole on
// every change. Only the round-robin state inside aliases changes.
type table struct {
	aliases  map[string]*alias
	policies policies
	failover Failover
	rows     []Row // every row in force, by source
	// gen tells snapshots apart, so a session pin taken under an older
	// snapshot is not applied to this one's target indexes.
	gen uint64
}

// alias is a row with targets, ready for picking.
type alias struct {
	row      *Row
	source   string
	enabled  bool
	paths    []string
	affinity bool
	slowdown *float64
	cost     bool
	targets  []target
	byPrice  []int // target indexes, cheapest first (cost strategy)

	mu      sync.Mutex
	current []float64 // smooth weighted round-robin state, per target
	total   float64
}

// target is one target of an alias: a provider's model, or (sub set)
// another alias.
type target struct {
	provider, model string
	weight          float64
	price           float64 // input + output per million tokens; +Inf unpriced
	sub             *alias
}

// build checks rows and failover against the providers (name → provider
// type) and returns the snapshot. Targets must name configured providers;
// chains of aliases (a target "provider/model" that is itself an alias's
// source) must be acyclic and at most MaxChainDepth deep.
func build(rows []Row, failover Failover, providers map[string]string, gen uint64) (*table, error) {
	t := &table{aliases: map[string]*alias{}, failover: failover, gen: gen, rows: rows}
	for i := range rows {
		r := &rows[i]
		if len(r.Targets) == 0 {
			t.policies.add(r)
			continue
		}
		a := &alias{row: r, source: r.Source, enabled: r.Enabled == nil || *r.Enabled, paths: r.UserPaths,
			affinity: r.SessionAffinity == nil || *r.SessionAffinity, slowdown: r.Slowdown, cost: r.Strategy == StrategyCost}
		for j, tg := range r.Targets {
			typ, ok := providers[tg.Provider]
			if !ok {
				return nil, &RowError{Source: r.Source, Err: apierr.FieldMsg(fmt.Sprintf("targets[%d].provider", j),
					fmt.Sprintf("unknown provider %q (configured: %s)", tg.Provider, strings.Join(sortedNames(providers), ", ")))}
			}
			w := tg.Share()
			a.targets = append(a.targets, target{provider: tg.Provider, model: tg.Model, weight: w, price: priceOf(typ, tg.Model)})
			a.total += w
		}
		a.current = make([]float64, len(a.targets))
		t.aliases[r.Source] = a
	}
	for _, a := range t.aliases {
		for i := range a.targets {
			a.targets[i].sub = t.aliases[a.targets[i].provider+"/"+a.targets[i].model]
		}
	}
	for _, src := range sortedAliases(t.aliases) {
		if err := checkChain(t.aliases[src], nil); err != nil {
			return nil, err
		}
	}
	for _, a := range t.aliases {
		for i := range a.targets {
			if a.targets[i].sub != nil {
				a.targets[i].price = a.targets[i].sub.cheapest(0)
			}
		}
		a.byPrice = make([]int, len(a.targets))
		for i := range a.byPrice {
			a.byPrice[i] = i
		}
		slices.SortStableFunc(a.byPrice, func(x, y int) int {
			px, py := a.targets[x].price, a.targets[y].price
			switch {
			case px < py:
				return -1
			case px > py:
				return 1
			}
			return 0
		})
	}
	return t, nil
}

// checkChain refuses a cycle or a chain deeper than MaxChainDepth from a.
func checkChain(a *alias, path []string) error {
	if slices.Contains(path, a.source) {
		return &RowError{Source: a.source, Err: fmt.Errorf("targets form a cycle: %s", strings.Join(append(path, a.source), " → "))}
	}
	path = append(path, a.source)
	if len(path) > MaxChainDepth {
		return &RowError{Source: path[0], Err: fmt.Errorf("chain %s is deeper than %d", strings.Join(path, " → "), MaxChainDepth)}
	}
	for _, tg := range a.targets {
		if tg.sub != nil {
			if err := checkChain(tg.sub, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// cheapest is the lowest price among a's targets, following chains.
func (a *alias) cheapest(depth int) float64 {
	best := math.Inf(1)
	for _, tg := range a.targets {
		p := tg.price
		if tg.sub != nil && depth < MaxChainDepth {
			p = tg.sub.cheapest(depth + 1)
		}
		best = min(best, p)
	}
	return best
}

// priceOf is the catalog's input plus output price of a model per million
// tokens, +Inf when it has none.
func priceOf(providerType, model string) float64 {
	md, ok := catalog.Lookup(providerType, model)
	if !ok || md.Pricing == nil || md.Pricing.InputPerMTok == nil || md.Pricing.OutputPerMTok == nil {
		return math.Inf(1)
	}
	return *md.Pricing.InputPerMTok + *md.Pricing.OutputPerMTok
}

func sortedNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedAliases(m map[string]*alias) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
