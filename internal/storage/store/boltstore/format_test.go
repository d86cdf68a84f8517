package boltstore

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"go.etcd.io/bbolt"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/storage/store"
)

// fill sets every field reachable from v (a pointer) to a non-zero value
// derived from n, so a field the binary format forgets shows up as a
// difference after a round trip.
func fill(t *testing.T, v reflect.Value, n *int) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		fill(t, v.Elem(), n)
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			v.Set(reflect.ValueOf(time.Unix(1_700_000_000+int64(*n), int64(*n)).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(t, v.Field(i), n)
			}
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d-ü\n", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(*n) * 1001)
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Slice:
		if v.Type() == reflect.TypeOf(json.RawMessage{}) {
			v.Set(reflect.ValueOf(json.RawMessage(fmt.Sprintf(`{"n":%d}`, *n))))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(t, k, n)
			fill(t, e, n)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	case reflect.Array:
		for i := range v.Len() {
			v.Index(i).Set(reflect.ValueOf(byte(*n + i)).Convert(v.Type().Elem()))
		}
	default:
		t.Fatalf("fill: unhandled kind %s (%s): teach the binary format and this test the new field", v.Kind(), v.Type())
	}
}

// TestBinaryFormatsCarryEveryField: an entry and a usage record with
// every field set read back equal, so a field added to audit.Entry,
// audit.Data, audit.Attempt, audit.Revision or audit.UsageRecord without
// a place in entryFields or usageFields fails here.
func TestBinaryFormatsCarryEveryField(t *testing.T) {
	a, s := openAudit(t)
	n := 0
	e := new(audit.Entry)
	fill(t, reflect.ValueOf(e), &n)
	e.ID = ids.New(base)
	e.AuthKeyName = "" // the admin API fills it in when it reads; never stored
	r := new(audit.UsageRecord)
	fill(t, reflect.ValueOf(r), &n)
	r.ID = ids.New(base)
	mustAppend(t, a, e)
	mustAppendUsage(t, a, r)
	flush(t, s)
	got, err := a.Entry(e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, e) {
		jsonEq(t, "entry", got, e)
		t.Fatalf("entry differs in Go:\n got %#v\nwant %#v", got, e)
	}
	var gotR *audit.UsageRecord
	if err := a.UsageRecords(time.Time{}, time.Time{}, func(x *audit.UsageRecord) bool { gotR = x; return false }); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotR, r) {
		t.Fatalf("usage record:\n got %#v\nwant %#v", gotR, r)
	}
}

// TestBinaryFormatsRejectNonFinite: a NaN has no JSON form, so an entry
// holding one is refused as it was when heads were JSON: not stored, and
// counted as dropped for its encoding.
func TestBinaryFormatsRejectNonFinite(t *testing.T) {
	a, s := openAudit(t)
	e := entryAt(base, 200)
	nan := 0.0
	nan /= nan
	e.Data.Temperature = &nan
	a.AppendEntry(e)
	r := usageAt(base, "/a", "", "m", nan)
	a.AppendUsage(r)
	flush(t, s)
	if _, err := a.Entry(e.ID); err == nil {
		t.Fatal("entry with NaN stored")
	}
	want := []store.Drop{{Kind: KindEntry, Reason: "encoding", Count: 1}, {Kind: KindUsage, Reason: "encoding", Count: 1}}
	if got := s.Drops(); !slices.Equal(got, want) {
		t.Fatalf("drops = %+v, want %+v", got, want)
	}
}

// TestOldFormatRecordsStillRead: a store holding entries and usage
// records in the earlier formats (JSON heads, separate metas and bodies,
// one index key per entry and term, JSON usage records) next to new ones
// reads, lists, filters and deletes both alike.
func TestOldFormatRecordsStillRead(t *testing.T) {
	a, s := openAudit(t)
	var old, all []*audit.Entry
	for i := range 12 {
		e := entryAt(base.Add(time.Duration(i)*10*time.Minute), []int{200, 404, 500}[i%3])
		e.SessionID = fmt.Sprintf("s%d", i%2)
		if i%4 == 3 {
			e.Data.Attempts = nil // no other bodies than the request's
			e.Data.ResponseBody = nil
		}
		all = append(all, e)
		if i%2 == 0 {
			old = append(old, e)
		}
	}
	err := s.Update(func(tx *bbolt.Tx) error {
		for _, e := range old {
			if err := legacyPutEntry(tx, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range all {
		if i%2 == 1 {
			mustAppend(t, a, e)
		}
	}
	u0, u1 := usageAt(base, "/a", "s0", "m", 1), usageAt(base.Add(time.Minute), "/a", "s0", "m", 2)
	if err := s.Update(func(tx *bbolt.Tx) error { return legacyPutUsage(tx, u0) }); err != nil {
		t.Fatal(err)
	}
	mustAppendUsage(t, a, u1)
	flush(t, s)

	for _, e := range all {
		got, err := a.Entry(e.ID)
		if err != nil {
			t.Fatal(err)
		}
		jsonEq(t, "entry "+e.ID.String(), got, e)
	}
	newestFirst := func(keep func(*audit.Entry) bool) []string {
		var out []string
		for i := len(all) - 1; i >= 0; i-- {
			if keep(all[i]) {
				out = append(out, all[i].ID.String())
			}
		}
		return out
	}
	check := func(q audit.EntryQuery, keep func(*audit.Entry) bool) {
		t.Helper()
		q.Limit = 100
		p, err := a.ListEntries(q)
		if err != nil {
			t.Fatal(err)
		}
		want := newestFirst(keep)
		eqStrings(t, fmt.Sprintf("list %+v", q), pageIDs(p), want)
		if p.Total != len(want) {
			t.Fatalf("list %+v: total %d, want %d", q, p.Total, len(want))
		}
	}
	check(audit.EntryQuery{}, func(*audit.Entry) bool { return true })
	check(audit.EntryQuery{SessionID: "s1"}, func(e *audit.Entry) bool { return e.SessionID == "s1" })
	check(audit.EntryQuery{StatusClass: 5}, func(e *audit.Entry) bool { return e.StatusCode/100 == 5 })
	check(audit.EntryQuery{SessionID: "s0", StatusCode: 404}, func(e *audit.Entry) bool { return e.SessionID == "s0" && e.StatusCode == 404 })
	check(audit.EntryQuery{Search: all[5].ID.String()}, func(e *audit.Entry) bool { return e == all[5] })
	check(audit.EntryQuery{Model: "gpt-4o-mini", From: all[3].ID.Time(), To: all[9].ID.Time()},
		func(e *audit.Entry) bool {
			return e.ID.Time().Compare(all[3].ID.Time()) >= 0 && e.ID.Time().Before(all[9].ID.Time())
		})
	sess, err := a.SessionEntryIDs("/team/a", "s0")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range all {
		if e.SessionID == "s0" {
			want = append(want, e.ID.String())
		}
	}
	var got []string
	for _, id := range sess {
		got = append(got, id.String())
	}
	eqStrings(t, "session entries", got, want)

	var recs []*audit.UsageRecord
	if err := a.UsageRecords(time.Time{}, time.Time{}, func(r *audit.UsageRecord) bool { recs = append(recs, r); return true }); err != nil {
		t.Fatal(err)
	}
	// Records stored without a cost source read as priced by the catalog.
	u0.CostSource, u1.CostSource = catalog.CostSourceCatalog, catalog.CostSourceCatalog
	jsonEq(t, "usage records", recs, []*audit.UsageRecord{u0, u1})

	// Retention goes through both formats, leaving nothing behind.
	n, err := a.DeleteEntriesBefore(all[7].ID.Time(), 100)
	if err != nil || n != 7 {
		t.Fatalf("deleted %d (%v), want 7", n, err)
	}
	if got := indexKeyCount(t, s); got != 5*7 {
		t.Fatalf("%d index ids left, want %d", got, 5*7)
	}
	check(audit.EntryQuery{SessionID: "s1"}, func(e *audit.Entry) bool { return e.SessionID == "s1" && e.ID.Time().Compare(all[7].ID.Time()) >= 0 })
	if n, err := a.DeleteEntriesBefore(base.Add(24*time.Hour), 100); err != nil || n != 5 {
		t.Fatalf("deleted %d (%v), want 5", n, err)
	}
	_ = s.View(func(tx *bbolt.Tx) error {
		for _, name := range [][]byte{bucketEntries, bucketMeta, bucketBodies, bucketRequestBodies, bucketBodyChunks, bucketIndex} {
			if b := tx.Bucket(name); b != nil && b.Stats().KeyN != 0 {
				t.Errorf("%s: %d keys left", name, b.Stats().KeyN)
			}
		}
		return nil
	})
}

// TestAppendLowerMatchesToLower: the search text is strings.ToLower of
// each field, ASCII or not.
func TestAppendLowerMatchesToLower(t *testing.T) {
	for _, s := range []string{"", "abc", "ABC/Def-1", "Grüße ÀÉ", "İstanbul", "\xff\xfeX", "ß"} {
		got := string(appendLower([]byte("x"), s))
		want := "x"
		if s != "" {
			want += strings.ToLower(s) + "\n"
		}
		if got != want {
			t.Errorf("appendLower(%q) = %q, want %q", s, got, want)
		}
	}
}
