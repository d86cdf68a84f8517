package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"strconv"
	"strings"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/storage/records"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// Buckets of the rate-limit engine.
const (
	// BucketRateLimitRules holds the manual rules, one JSON record (the
	// limits.Rule form) per rule key.
	BucketRateLimitRules = "rate_limit_rules"
	// BucketRateLimitCounters holds counter snapshots, per-rule reset
	// markers and the reset-all floor.
	BucketRateLimitCounters = "rate_limit_counters"
)

// Record keys inside BucketRateLimitCounters. A rule's identity is
// scope NUL period label NUL subject (ruleKey); subjects never contain NUL
// (rules with control characters are refused).
const (
	recordPrefix = "c\x00" // counter snapshot: c NUL rule NUL child
	markerPrefix = "m\x00" // reset marker of one rule: m NUL rule
	floorKey     = "g"     // reset-all floor
)

// RateLimits implements limits.RuleStore and limits.CounterStore over the
// embedded store: rules and reset markers in synchronous transactions,
// counter snapshots through the batched queue.
type RateLimits struct{ s *store.Store }

var (
	_ limits.RuleStore    = RateLimits{}
	_ limits.CounterStore = RateLimits{}
)

// NewRateLimits returns the rate-limit storage over s.
func NewRateLimits(s *store.Store) RateLimits { return RateLimits{s} }

// ruleKey is the stored identity of a rule key.
func ruleKey(k limits.Key) string {
	return string(k.Scope) + "\x00" + k.PeriodLabel() + "\x00" + k.Subject
}

// parseRuleKey inverts ruleKey.
func parseRuleKey(s string) (limits.Key, bool) {
	scope, rest, ok1 := strings.Cut(s, "\x00")
	label, subject, ok2 := strings.Cut(rest, "\x00")
	if !ok1 || !ok2 || strings.IndexByte(subject, 0) >= 0 {
		return limits.Key{}, false
	}
	k := limits.Key{Scope: limits.Scope(scope), Subject: subject}
	switch p := limits.Period(label); p {
	case limits.PeriodMinute, limits.PeriodHour, limits.PeriodDay, limits.PeriodConcurrent:
		k.Period = p
	default:
		n, found := strings.CutSuffix(label, "s")
		secs, err := strconv.Atoi(n)
		if !found || err != nil || secs <= 0 {
			return limits.Key{}, false
		}
		k.PeriodSeconds = secs
	}
	return k, true
}

// counterKey is the record key of one counter.
func counterKey(id limits.CounterID) []byte {
	return []byte(recordPrefix + ruleKey(id.Rule) + "\x00" + id.Child)
}

// parseCounterKey inverts counterKey.
func parseCounterKey(k string) (limits.CounterID, bool) {
	rest, ok := strings.CutPrefix(k, recordPrefix)
	if !ok {
		return limits.CounterID{}, false
	}
	i := strings.LastIndexByte(rest, 0)
	if i < 0 {
		return limits.CounterID{}, false
	}
	rk, ok := parseRuleKey(rest[:i])
	if !ok {
		return limits.CounterID{}, false
	}
	return limits.CounterID{Rule: rk, Child: rest[i+1:]}, true
}

// snapVersion is the first byte of every snapshot record.
const snapVersion = 1

// snapLen is the encoded size of a snapshot.
const snapLen = 1 + 6*8

// encodeSnapshot serialises s: the version byte, then the generation,
// window index, current and previous requests, current and previous tokens
// as big-endian 64-bit integers.
func encodeSnapshot(s limits.Snapshot) []byte {
	b := make([]byte, 1, snapLen)
	b[0] = snapVersion
	b = binary.BigEndian.AppendUint64(b, s.Gen)
	for _, v := range [...]int64{s.Window, s.Requests, s.PrevRequests, s.Tokens, s.PrevTokens} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

// decodeSnapshot parses a record written by encodeSnapshot.
func decodeSnapshot(b []byte) (limits.Snapshot, bool) {
	if len(b) != snapLen || b[0] != snapVersion {
		return limits.Snapshot{}, false
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(b[1+8*i:]) }
	s := limits.Snapshot{Gen: u(0), Window: int64(u(1)), Requests: int64(u(2)), PrevRequests: int64(u(3)),
		Tokens: int64(u(4)), PrevTokens: int64(u(5))}
	if s.Requests < 0 || s.PrevRequests < 0 || s.Tokens < 0 || s.PrevTokens < 0 {
		return limits.Snapshot{}, false
	}
	return s, true
}

// LoadRules implements limits.RuleStore.
func (r RateLimits) LoadRules() ([]limits.Rule, []error, error) {
	var (
		rules   []limits.Rule
		skipped []error
	)
	err := r.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketRateLimitRules))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			// The key is scope NUL label NUL subject (ruleKey): named
			// with spaces, it is the records.RuleName of its rule.
			rule, err := records.DecodeRule(strings.ReplaceAll(string(k), "\x00", " "), v)
			if err != nil {
				skipped = append(skipped, err)
				return nil
			}
			rules = append(rules, rule)
			return nil
		})
	})
	return rules, skipped, err
}

// ReplaceRule implements limits.RuleStore.
func (r RateLimits) ReplaceRule(put *limits.Rule, del *limits.Key) error {
	var v []byte
	if put != nil {
		var err error
		if v, err = records.EncodeRule(*put); err != nil {
			return err
		}
	}
	return r.s.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketRateLimitRules))
		if err != nil {
			return err
		}
		if del != nil {
			if err := b.Delete([]byte(ruleKey(del.Normalize()))); err != nil {
				return err
			}
		}
		if put != nil {
			return b.Put([]byte(ruleKey(put.Key())), v)
		}
		return nil
	})
}

// LoadCounters implements limits.CounterStore. Records it cannot read are
// deleted.
func (r RateLimits) LoadCounters() (limits.StoredCounters, error) {
	out := limits.StoredCounters{Markers: map[limits.Key]uint64{}}
	var bad [][]byte
	err := r.s.View(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(BucketRateLimitCounters))
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			ks := string(k)
			switch {
			case ks == floorKey:
				if len(v) == 8 {
					out.Floor = binary.BigEndian.Uint64(v)
				}
			case strings.HasPrefix(ks, markerPrefix):
				rk, ok := parseRuleKey(ks[len(markerPrefix):])
				if ok && len(v) == 8 {
					out.Markers[rk] = binary.BigEndian.Uint64(v)
				} else {
					bad = append(bad, bytes.Clone(k))
				}
			default:
				id, ok := parseCounterKey(ks)
				s, okv := decodeSnapshot(v)
				if !ok || !okv {
					bad = append(bad, bytes.Clone(k))
					return nil
				}
				out.Records = append(out.Records, limits.CounterRecord{CounterID: id, Snapshot: s})
			}
			return nil
		})
	})
	if err != nil || len(bad) == 0 {
		return out, err
	}
	return out, deleteFrom(r.s, BucketRateLimitCounters, bad)
}

// QueueSnapshot implements limits.CounterStore.
func (r RateLimits) QueueSnapshot(rec limits.CounterRecord) bool {
	return r.s.Enqueue(store.Write{Bucket: BucketRateLimitCounters, Key: counterKey(rec.CounterID), Value: encodeSnapshot(rec.Snapshot)})
}

// QueueDelete implements limits.CounterStore.
func (r RateLimits) QueueDelete(id limits.CounterID) bool {
	return r.s.Enqueue(store.Write{Bucket: BucketRateLimitCounters, Key: counterKey(id)})
}

// DeleteCounters implements limits.CounterStore.
func (r RateLimits) DeleteCounters(ids []limits.CounterID) error {
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = counterKey(id)
	}
	return deleteFrom(r.s, BucketRateLimitCounters, keys)
}

// MarkReset implements limits.CounterStore.
func (r RateLimits) MarkReset(rules []limits.Key, gen uint64) error {
	return r.s.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketRateLimitCounters))
		if err != nil {
			return err
		}
		for _, k := range rules {
			rk := ruleKey(k)
			if err := raise(b, []byte(markerPrefix+rk), gen); err != nil {
				return err
			}
			if err := deletePrefix(b, []byte(recordPrefix+rk+"\x00")); err != nil {
				return err
			}
		}
		return nil
	})
}

// MarkResetAll implements limits.CounterStore.
func (r RateLimits) MarkResetAll(gen uint64) error {
	return r.s.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte(BucketRateLimitCounters))
		if err != nil {
			return err
		}
		if err := raise(b, []byte(floorKey), gen); err != nil {
			return err
		}
		return deletePrefix(b, []byte(recordPrefix))
	})
}

// Flush implements limits.CounterStore.
func (r RateLimits) Flush(ctx context.Context) error { return r.s.Flush(ctx) }

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
