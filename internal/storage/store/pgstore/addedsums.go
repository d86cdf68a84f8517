package pgstore

import "strings"

// addedSums is the SET list of an upsert (INSERT ... AS t ... ON CONFLICT
// DO UPDATE SET) that adds each new row's sums (EXCLUDED) to the stored
// row's: the bigint columns ints and the float8 columns floats. The sums
// saturate as catalog.SaturatingAdd's and catalog.SaturatingAddFloat's
// do: one that would pass the largest bigint (float8) stays there, where
// PostgreSQL would fail the whole write with an out-of-range error. The
// added sums are never negative.
func addedSums(ints, floats []string) string {
	var b strings.Builder
	add := func(col, limit string) {
		if b.Len() > 0 {
			b.WriteString(",\n\t\t\t")
		}
		b.WriteString(col + " = CASE WHEN t." + col + " > " + limit + " - EXCLUDED." + col + " THEN " + limit +
			" ELSE t." + col + " + EXCLUDED." + col + " END")
	}
	for _, c := range ints {
		add(c, "9223372036854775807")
	}
	for _, c := range floats {
		add(c, "'1.7976931348623157e308'::float8")
	}
	return b.String()
}
