package limits

// Persistence.
//
// Manual rules live in BucketRules, one JSON record per rule key, written
// synchronously (store.Update) by the admin operations.
//
// Counter snapshots live in BucketCounters: one binary record per window
// counter (a rule's own counter or one child partition), written by the
// periodic flush through the store's non-blocking queue (store.Enqueue):
// the snapshot goroutine never waits for disk, and only counters changed
// since the previous snapshot are written. Concurrency gauges are never
// persisted.
//
// Resets must never be undone by a snapshot that raced them (read before
// the reset, committed after it). Every counter carries a generation, a
// number from one engine-wide increasing sequence, and every record stores
// the generation of the data it holds. A reset (reset-one, delete, key
// change, reset-all) takes a fresh generation G, first commits a marker
// "records of this rule older than G are void" (for reset-all one global
// floor) synchronously, then clears the counters in memory and stamps them
// with G. A snapshot reads data and generation together under the counter's
// mutex, so a record taken before the clear carries an older generation and
// is ignored (and deleted) when counters are loaded, whatever order the
// writes reach the file in; a record taken after it holds only post-reset
// data. Markers only ever rise. At load the sequence resumes above every
// generation found in the file, so new rules and resets outrank everything
// stored.

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/modelgate/modelgate/store"
	"go.etcd.io/bbolt"
	"go.uber.org/zap"
)

// Store buckets.
const (
	// BucketRules holds the manual rules.
	BucketRules = "rate_limit_rules"
	// BucketCounters holds counter snapshots and reset markers.
	BucketCounters = "rate_limit_counters"
)

// Key prefixes inside BucketCounters.
const (
	recordPrefix = "c\x00" // counter snapshot: c NUL rule NUL child
	markerPrefix = "m\x00" // reset marker of one rule: m NUL rule
	floorKey     = "g"     // reset-all floor
)

// finalFlushTimeout bounds how long Close waits for the store.
const finalFlushTimeout = 10 * time.Second

// storageKey is the persistent identity of a rule key:
// scope NUL period NUL subject. Subjects never contain NUL (validated).
func storageKey(k Key) string {
	return string(k.Scope) + "\x00" + k.PeriodLabel() + "\x00" + k.Subject
}

// counterKey is the record key of a rule's counter (child "") or of one
// child partition.
func counterKey(keyStr, child string) string {
	return recordPrefix + keyStr + "\x00" + child
}

// parseCounterKey splits a record key into its rule storage key, window
// length and child.
func parseCounterKey(k string) (keyStr string, period time.Duration, child string, ok bool) {
	rest, found := strings.CutPrefix(k, recordPrefix)
	if !found {
		return "", 0, "", false
	}
	parts := strings.Split(rest, "\x00")
	if len(parts) != 4 {
		return "", 0, "", false
	}
	period = periodFromLabel(parts[1])
	if period <= 0 {
		return "", 0, "", false
	}
	return parts[0] + "\x00" + parts[1] + "\x00" + parts[2], period, parts[3], true
}

// periodFromLabel inverts Key.PeriodLabel for window periods.
func periodFromLabel(l string) time.Duration {
	switch Period(l) {
	case PeriodMinute, PeriodHour, PeriodDay:
		return Key{Period: Period(l)}.Duration()
	}
	if n, found := strings.CutSuffix(l, "s"); found {
		if secs, err := strconv.Atoi(n); err == nil && secs > 0 {
			return time.Duration(secs) * time.Second
		}
	}
	return 0
}

// snap is a counter's persisted state.
type snap struct {
	gen                                   uint64
	idx, curReq, prevReq, curTok, prevTok int64
}

// snapVersion is the first byte of every record.
const snapVersion = 1

// snapLen is the encoded size of a snap.
const snapLen = 1 + 6*8

// encode serialises s.
func (s snap) encode() []byte {
	b := make([]byte, 1, snapLen)
	b[0] = snapVersion
	b = binary.BigEndian.AppendUint64(b, s.gen)
	for _, v := range [...]int64{s.idx, s.curReq, s.prevReq, s.curTok, s.prevTok} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// decodeSnap parses a record.
func decodeSnap(b []byte) (snap, bool) {
	if len(b) != snapLen || b[0] != snapVersion {
		return snap{}, false
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(b[1+8*i:]) }
	s := snap{gen: u(0), idx: int64(u(1)), curReq: int64(u(2)), prevReq: int64(u(3)), curTok: int64(u(4)), prevTok: int64(u(5))}
	if s.curReq < 0 || s.prevReq < 0 || s.curTok < 0 || s.prevTok < 0 {
		return snap{}, false
	}
	return s, true
}

// snapshot reads c's state. Caller holds c.mu.
func (c *counter) snapshot() snap {
	return snap{gen: c.gen, idx: c.idx, curReq: c.curReq, prevReq: c.prevReq, curTok: c.curTok, prevTok: c.prevTok}
}

// restore loads s into c.
func (c *counter) restore(s snap) {
	c.gen, c.idx = s.gen, s.idx
	c.curReq, c.prevReq, c.curTok, c.prevTok = s.curReq, s.prevReq, s.curTok, s.prevTok
}

// pendingGroup holds loaded counters of one rule key until a live rule
// claims them.
type pendingGroup struct {
	agg   *snap
	parts map[string]snap
}

// attach loads p into a new group. Records of the other shape (per_child
// switched while stopped) are ignored.
func (p *pendingGroup) attach(g *group) {
	if g.agg != nil && p.agg != nil {
		g.agg.restore(*p.agg)
	}
	if g.tmpl != nil {
		for child, s := range p.parts {
			c := newCounter(g.period, child, s.gen)
			c.restore(s)
			g.tmpl.parts[child] = c
		}
	}
}

// ruleRecord is the stored form of a manual rule.
type ruleRecord struct {
	Scope         Scope  `json:"scope"`
	Subject       string `json:"subject"`
	Period        Period `json:"period,omitempty"`
	PeriodSeconds int    `json:"period_seconds,omitempty"`
	MaxRequests   int64  `json:"max_requests,omitempty"`
	MaxTokens     int64  `json:"max_tokens,omitempty"`
	PerChild      bool   `json:"per_child,omitempty"`
}

// persistRule stores put and deletes del (either may be nil) in one
// transaction.
func (e *Engine) persistRule(put *Rule, del *Key) error {
	if e.st == nil {
		return nil
	}
	err := e.st.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketRules))
		if err != nil {
			return err
		}
		if del != nil {
			if err := b.Delete([]byte(storageKey(*del))); err != nil {
				return err
			}
		}
		if put != nil {
			v, err := json.Marshal(ruleRecord{
				Scope: put.Scope, Subject: put.Subject, Period: put.Period, PeriodSeconds: put.PeriodSeconds,
				MaxRequests: put.MaxRequests, MaxTokens: put.MaxTokens, PerChild: put.PerChild,
			})
			if err != nil {
				return err
			}
			return b.Put([]byte(storageKey(put.Key())), v)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rate limits: persist rule: %w", err)
	}
	return nil
}

// markReset commits reset markers of generation gen for the rules keyStrs
// and deletes their records (records still queued are voided by the
// marker).
func (e *Engine) markReset(keyStrs []string, gen uint64) error {
	if e.st == nil {
		return nil
	}
	err := e.st.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketCounters))
		if err != nil {
			return err
		}
		for _, ks := range keyStrs {
			if err := raise(b, []byte(markerPrefix+ks), gen); err != nil {
				return err
			}
			if err := deletePrefix(b, []byte(recordPrefix+ks+"\x00")); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("rate limits: persist reset: %w", err)
	}
	return nil
}

// markResetAll commits the reset-all floor gen and deletes every record.
func (e *Engine) markResetAll(gen uint64) error {
	if e.st == nil {
		return nil
	}
	err := e.st.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketCounters))
		if err != nil {
			return err
		}
		if err := raise(b, []byte(floorKey), gen); err != nil {
			return err
		}
		return deletePrefix(b, []byte(recordPrefix))
	})
	if err != nil {
		return fmt.Errorf("rate limits: persist reset: %w", err)
	}
	return nil
}

// raise stores gen under key unless a higher value is stored already.
func raise(b *bbolt.Bucket, key []byte, gen uint64) error {
	if v := b.Get(key); len(v) == 8 && binary.BigEndian.Uint64(v) >= gen {
		return nil
	}
	return b.Put(key, binary.BigEndian.AppendUint64(nil, gen))
}

// deletePrefix deletes every key starting with prefix.
func deletePrefix(b *bbolt.Bucket, prefix []byte) error {
	var keys [][]byte
	c := b.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		keys = append(keys, bytes.Clone(k))
	}
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// loadedRecord is a counter record read at load.
type loadedRecord struct {
	key    string
	keyStr string
	period time.Duration
	child  string
	s      snap
}

// load reads manual rules and counter snapshots. Valid snapshots of windows
// still relevant now go to e.pending; void, expired and malformed records
// are deleted.
func (e *Engine) load() error {
	var (
		rules   []Rule
		recs    []loadedRecord
		bad     []string
		markers = map[string]uint64{}
		floor   uint64
	)
	err := e.st.View(func(tx *bbolt.Tx) error {
		if b := tx.Bucket([]byte(BucketRules)); b != nil {
			err := b.ForEach(func(k, v []byte) error {
				var rr ruleRecord
				if err := json.Unmarshal(v, &rr); err != nil {
					e.log.Warn("rate limits: skipping unreadable stored rule", zap.ByteString("key", k), zap.Error(err))
					return nil
				}
				rules = append(rules, Rule{
					Scope: rr.Scope, Subject: rr.Subject, Period: rr.Period, PeriodSeconds: rr.PeriodSeconds,
					MaxRequests: rr.MaxRequests, MaxTokens: rr.MaxTokens, PerChild: rr.PerChild, Source: SourceManual,
				})
				return nil
			})
			if err != nil {
				return err
			}
		}
		b := tx.Bucket([]byte(BucketCounters))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			ks := string(k)
			switch {
			case ks == floorKey:
				if len(v) == 8 {
					floor = binary.BigEndian.Uint64(v)
				}
			case strings.HasPrefix(ks, markerPrefix):
				if len(v) == 8 {
					markers[ks[len(markerPrefix):]] = binary.BigEndian.Uint64(v)
				}
			default:
				keyStr, period, child, ok := parseCounterKey(ks)
				s, okv := decodeSnap(v)
				if !ok || !okv {
					bad = append(bad, ks)
					return nil
				}
				recs = append(recs, loadedRecord{key: ks, keyStr: keyStr, period: period, child: child, s: s})
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("rate limits: load from store: %w", err)
	}

	maxGen := floor
	for _, m := range markers {
		maxGen = max(maxGen, m)
	}
	now := e.nowNanos()
	for _, r := range recs {
		maxGen = max(maxGen, r.s.gen)
		nowIdx := floorDiv(now, int64(r.period))
		if r.s.gen < max(floor, markers[r.keyStr]) || r.s.idx < nowIdx-1 {
			bad = append(bad, r.key) // voided by a reset, or fully decayed
			continue
		}
		p := e.pending[r.keyStr]
		if p == nil {
			p = &pendingGroup{parts: map[string]snap{}}
			e.pending[r.keyStr] = p
		}
		if r.child == "" {
			s := r.s
			p.agg = &s
		} else {
			p.parts[r.child] = r.s
		}
	}
	e.gen.Store(maxGen)

	for _, r := range rules {
		r = r.normalized()
		if err := r.Validate(true); err != nil {
			e.log.Warn("rate limits: skipping invalid stored rule", zap.Stringer("rule", r.Key()), zap.Error(err))
			continue
		}
		if r.PerChild && !e.entitled.Load() {
			e.log.Warn("rate limits: stored per_child rule kept although the quota_templates entitlement is off; delete it or restore the entitlement",
				zap.Stringer("rule", r.Key()))
		}
		e.manual[r.Key()] = r
	}

	if len(bad) > 0 {
		err := e.st.Update(func(tx *bbolt.Tx) error {
			b := tx.Bucket([]byte(BucketCounters))
			for _, k := range bad {
				if err := b.Delete([]byte(k)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			e.log.Warn("rate limits: could not delete stale counter records", zap.Error(err))
		}
	}
	return nil
}

// flush snapshots every counter changed since the last snapshot into the
// store's queue. final (Close) retries once after draining the queue when
// it is full, then waits until the store has committed everything.
func (e *Engine) flush(final bool) error {
	e.flushMu.Lock()
	defer e.flushMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), finalFlushTimeout)
	defer cancel()
	var buf []*counter
	for _, rs := range e.set.Load().list {
		g := rs.g
		if g.period <= 0 {
			continue
		}
		if g.agg != nil {
			e.flushCounter(ctx, g, g.agg, final)
			continue
		}
		buf = g.tmpl.list(buf[:0])
		for _, c := range buf {
			e.flushCounter(ctx, g, c, final)
		}
	}
	if !final {
		return nil
	}
	if err := e.st.Flush(ctx); err != nil {
		return fmt.Errorf("rate limits: final counter snapshot: %w", err)
	}
	return nil
}

// flushCounter enqueues c's snapshot if it changed. When the queue is full
// the counter stays dirty for the next snapshot (unless a reset got there
// first).
func (e *Engine) flushCounter(ctx context.Context, g *group, c *counter, final bool) {
	c.mu.Lock()
	if !c.dirty || c.dead {
		c.mu.Unlock()
		return
	}
	s := c.snapshot()
	c.dirty = false
	c.mu.Unlock()
	w := store.Write{Bucket: BucketCounters, Key: []byte(counterKey(g.keyStr, c.child)), Value: s.encode()}
	if e.st.Enqueue(w) {
		return
	}
	if final && e.st.Flush(ctx) == nil && e.st.Enqueue(w) {
		return
	}
	c.mu.Lock()
	if c.gen == s.gen && !c.dead {
		c.dirty = true
	}
	c.mu.Unlock()
}
