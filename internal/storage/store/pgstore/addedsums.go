package pgstore

import "strings"

// addedSums is the SET list of an upsert (INSERT ... AS t ... ON CONFLICT
// DO UPDATE SET) that adds each new row's sums (EXCLUDED) to the stored
// row's, for the bigint columns cols (counts, and costs in
// catalog.Nanos). The sums saturate as catalog.SaturatingAdd's do: one
// that would pass the largest bigint stays there, where PostgreSQL would
// fail the whole write with an out-of-range error. The added sums are
// never negative.
func addedSums(cols ...string) string {
	var b strings.Builder
	const limit = "9223372036854775807"
	for _, col := range cols {
		if b.Len() > 0 {
			b.WriteString(",\n\t\t\t")
		}
		b.WriteString(col + " = CASE WHEN t." + col + " > " + limit + " - EXCLUDED." + col + " THEN " + limit +
			" ELSE t." + col + " + EXCLUDED." + col + " END")
	}
	return b.String()
}
