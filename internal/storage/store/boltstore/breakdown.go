package boltstore

import (
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

// breakdownVersion starts every encoded BreakdownRow: the varints of
// audit.BreakdownRow.Sums follow.
const breakdownVersion = 1

// breakdownKey is the key of r's breakdown row of the period that starts
// at start: period start, user path, key id, provider, model, endpoint.
func breakdownKey(start time.Time, r *audit.UsageRecord) []byte {
	b := make([]byte, 0, 8+5*binary.MaxVarintLen64+len(r.UserPath)+len(r.AuthKeyID)+
		len(r.ProviderName)+len(r.Model)+len(r.Endpoint))
	b = binary.BigEndian.AppendUint64(b, uint64(start.Unix()))
	for _, s := range [...]string{r.UserPath, r.AuthKeyID, r.ProviderName, r.Model, r.Endpoint} {
		b = appendLP(b, s)
	}
	return b
}

// encodeBreakdownSums encodes the sums of r.
func encodeBreakdownSums(r *audit.BreakdownRow) []byte {
	b := make([]byte, 0, 2+audit.NumBreakdownSums*3)
	b = append(b, breakdownVersion)
	for _, v := range r.Sums() {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// decodeBreakdownSums decodes the sums of a row into r (not its key).
func decodeBreakdownSums(b []byte, r *audit.BreakdownRow) error {
	if len(b) == 0 || b[0] != breakdownVersion {
		return errCorrupt
	}
	b = b[1:]
	var sums [audit.NumBreakdownSums]int64
	for i := range sums {
		var ok bool
		if sums[i], b, ok = readVarint(b); !ok {
			return errCorrupt
		}
	}
	r.SetSums(sums[:])
	return nil
}

// decodeBreakdown decodes a row stored under key k.
func decodeBreakdown(k, v []byte) (audit.BreakdownRow, error) {
	var r audit.BreakdownRow
	if len(k) < 8 {
		return r, errCorrupt
	}
	r.Start = keyTime(k)
	rest := k[8:]
	for _, dst := range [...]*string{&r.UserPath, &r.KeyID, &r.Provider, &r.Model, &r.Endpoint} {
		s, next, ok := readLP(rest)
		if !ok {
			return r, errCorrupt
		}
		*dst, rest = string(s), next
	}
	return r, decodeBreakdownSums(v, &r)
}

// BreakdownRows returns the breakdown rows of granularity g whose period
// starts in [from, to), in time order; zero bounds are open.
func (a *Audit) BreakdownRows(g audit.Granularity, from, to time.Time) ([]audit.BreakdownRow, error) {
	name := bucketBreakdownHours
	if g == audit.Daily {
		name = bucketBreakdownDays
	}
	var out []audit.BreakdownRow
	err := a.s.View(func(tx *bbolt.Tx) error {
		return eachInPeriod(tx.Bucket(name), from, to, func(k, v []byte) error {
			row, err := decodeBreakdown(k, v)
			if err == nil {
				out = append(out, row)
			}
			return err
		})
	})
	return out, err
}
