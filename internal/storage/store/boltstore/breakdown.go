package boltstore

import (
	"encoding/binary"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/request/userpath"
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

// breakdownDims splits a row's key into its period start and its five
// dimensions (user path, key id, provider, model, endpoint), aliasing k.
func breakdownDims(k []byte) (start time.Time, dims [5][]byte, ok bool) {
	if len(k) < 8 {
		return start, dims, false
	}
	start = keyTime(k)
	rest := k[8:]
	for i := range dims {
		if dims[i], rest, ok = readLP(rest); !ok {
			return start, dims, false
		}
	}
	return start, dims, len(rest) == 0
}

// keeps reports whether the dimensions pass f.
func keeps(f *audit.UsageFilter, d *[5][]byte) bool {
	return (f.UserPath == "" || userpath.Covers(f.UserPath, aliasString(d[0]))) &&
		(f.KeyID == "" || string(d[1]) == f.KeyID) &&
		(f.Provider == "" || string(d[2]) == f.Provider) &&
		(f.Model == "" || string(d[3]) == f.Model)
}

// byDim is the index in breakdownDims of a grouping's dimension.
func byDim(by audit.BreakdownBy) int {
	switch by {
	case audit.ByKey:
		return 1
	case audit.ByProvider:
		return 2
	case audit.ByModel:
		return 3
	case audit.ByEndpoint:
		return 4
	}
	return 0
}

// Breakdown returns the breakdown rows sel selects, summed per value of
// sel.By when set. It reads the rows of the period in key order, decoding
// only the keys of rows the filter drops.
func (a *Audit) Breakdown(sel audit.BreakdownSelect) ([]audit.BreakdownRow, error) {
	name := bucketBreakdownHours
	switch sel.Granularity {
	case audit.Daily:
		name = bucketBreakdownDays
	case audit.Monthly:
		name = bucketBreakdownMonths
	}
	var out []audit.BreakdownRow
	groups := map[string]int{}
	dim := byDim(sel.By)
	err := a.s.View(func(tx *bbolt.Tx) error {
		return eachInPeriod(tx.Bucket(name), sel.From, sel.To, func(k, v []byte) error {
			start, d, ok := breakdownDims(k)
			if !ok {
				return errCorrupt
			}
			if !keeps(&sel.Filter, &d) {
				return nil
			}
			if sel.By == "" {
				r := audit.BreakdownRow{Start: start, UserPath: string(d[0]), KeyID: string(d[1]),
					Provider: string(d[2]), Model: string(d[3]), Endpoint: string(d[4])}
				if err := decodeBreakdownSums(v, &r); err != nil {
					return err
				}
				out = append(out, r)
				return nil
			}
			var r audit.BreakdownRow
			if err := decodeBreakdownSums(v, &r); err != nil {
				return err
			}
			if i, ok := groups[string(d[dim])]; ok {
				out[i].Add(&r)
				return nil
			}
			g := string(d[dim])
			*[...]*string{&r.UserPath, &r.KeyID, &r.Provider, &r.Model, &r.Endpoint}[dim] = g
			groups[g] = len(out)
			out = append(out, r)
			return nil
		})
	})
	return out, err
}
