package audittest

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/audit"
)

func testEntryRoundTrip(t *testing.T, open Open) {
	s := open(t)
	e := EntryAt(Base.Add(90*time.Minute), 200)
	e.SecretsRedacted = 3
	e.Data.RequestRevisions = []audit.Revision{{Seq: 1, Rewriter: "trim", Body: json.RawMessage(`{"model":"fast"}`),
		Detail: json.RawMessage(`{"removed":1}`), BytesBefore: 10, BytesAfter: 5}}
	MustAppend(t, s, e)
	Flush(t, s)

	got, err := s.Entry(e.ID)
	if err != nil {
		t.Fatal(err)
	}
	JSONEq(t, "entry read back", got, e)
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("entry read back differs in Go:\n got %#v\nwant %#v", got.Data, e.Data)
	}
	page, err := s.ListEntries(audit.EntryQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 1 || len(page.Entries) != 1 {
		t.Fatalf("page = %+v", page)
	}
	listed := *e
	listed.Data = e.Data.WithoutBodies()
	JSONEq(t, "listed entry", page.Entries[0], &listed)
	if !reflect.DeepEqual(page.Entries[0], &listed) {
		t.Fatal("listed entry differs in Go from the entry without bodies")
	}
	if _, err := s.Entry(audit.NewID(Base)); !errors.Is(err, audit.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}

	// A body recorded as invalid JSON reads back as a JSON string of it.
	bad := EntryAt(Base.Add(91*time.Minute), 200)
	bad.Data.RequestBody = json.RawMessage(`{"model":`)
	MustAppend(t, s, bad)
	Flush(t, s)
	if got, err := s.Entry(bad.ID); err != nil || string(got.Data.RequestBody) != `"{\"model\":"` {
		t.Fatalf("invalid body read as %v (%v)", got, err)
	}
}

func testEntryWithoutBodies(t *testing.T, open Open) {
	s := open(t)
	e := EntryAt(Base, 401)
	e.Data = &audit.Data{ErrorCode: "invalid_api_key"}
	bare := EntryAt(Base.Add(time.Second), 200)
	bare.Data = nil
	MustAppend(t, s, e, bare)
	Flush(t, s)
	for _, want := range []*audit.Entry{e, bare} {
		got, err := s.Entry(want.ID)
		if err != nil {
			t.Fatal(err)
		}
		JSONEq(t, "entry", got, want)
	}
}

func testRefusesWithoutID(t *testing.T, open Open) {
	s := open(t)
	e := EntryAt(Base, 200)
	e.ID = audit.ID{}
	if s.AppendEntry(e) {
		t.Fatal("entry without id accepted")
	}
	r := UsageAt(Base, "/", "", "m", 1)
	r.ID = audit.ID{}
	if s.AppendUsage(r) {
		t.Fatal("usage record without id accepted")
	}
}

func testListFiltersPagingAndTotals(t *testing.T, open Open) {
	s := open(t)
	mk := func(min int, status int, path, session, reqModel, resModel, provName, provType string) *audit.Entry {
		e := EntryAt(Base.Add(time.Duration(min)*time.Minute), status)
		e.UserPath, e.SessionID = path, session
		e.RequestedModel, e.ResolvedModel = reqModel, resModel
		e.ProviderName, e.Provider = provName, provType
		return e
	}
	e0 := mk(0, 200, "/a", "s1", "fast", "gpt-4o-mini", "oa1", "openai")
	e1 := mk(10, 404, "/a", "s1", "fast", "gpt-4o-mini", "oa1", "openai")
	e2 := mk(20, 500, "/b", "s2", "claude", "claude", "anth", "anthropic")
	e3 := mk(70, 200, "/a", "s2", "gpt-4o", "gpt-4o", "oa2", "openai")
	e4 := mk(130, 429, "/b", "", "fast", "gpt-4o-mini", "", "")
	e5 := mk(190, 200, "/a/x", "s1", "claude", "claude", "anth", "anthropic")
	e4.Data.ErrorMessage = "Rate limit exceeded for /b"
	MustAppend(t, s, e0, e1, e2, e3, e4, e5)
	Flush(t, s)

	cases := []struct {
		name string
		q    audit.EntryQuery
		want []*audit.Entry // newest first
	}{
		{"all", audit.EntryQuery{}, []*audit.Entry{e5, e4, e3, e2, e1, e0}},
		{"session", audit.EntryQuery{SessionID: "s1"}, []*audit.Entry{e5, e1, e0}},
		{"requested model", audit.EntryQuery{Model: "fast"}, []*audit.Entry{e4, e1, e0}},
		{"resolved model", audit.EntryQuery{Model: "gpt-4o-mini"}, []*audit.Entry{e4, e1, e0}},
		{"provider name", audit.EntryQuery{Provider: "anth"}, []*audit.Entry{e5, e2}},
		{"provider type", audit.EntryQuery{Provider: "openai"}, []*audit.Entry{e3, e1, e0}},
		{"user path is exact", audit.EntryQuery{UserPath: "/a"}, []*audit.Entry{e3, e1, e0}},
		{"status code", audit.EntryQuery{StatusCode: 200}, []*audit.Entry{e5, e3, e0}},
		{"status class", audit.EntryQuery{StatusClass: 4}, []*audit.Entry{e4, e1}},
		{"two filters", audit.EntryQuery{UserPath: "/a", StatusCode: 200}, []*audit.Entry{e3, e0}},
		{"three filters", audit.EntryQuery{SessionID: "s1", Provider: "openai", StatusClass: 2}, []*audit.Entry{e0}},
		{"search message", audit.EntryQuery{Search: "RATE LIMIT"}, []*audit.Entry{e4}},
		{"search model", audit.EntryQuery{Search: "claude"}, []*audit.Entry{e5, e2}},
		{"search and filter", audit.EntryQuery{Search: "claude", UserPath: "/b"}, []*audit.Entry{e2}},
		{"search id", audit.EntryQuery{Search: strings.ToLower(e3.ID.String())}, []*audit.Entry{e3}},
		{"search like characters", audit.EntryQuery{Search: "%"}, nil},
		{"search underscore", audit.EntryQuery{Search: "_"}, nil},
		{"search backslash", audit.EntryQuery{Search: `\`}, nil},
		{"hour bounds", audit.EntryQuery{From: Base.Add(time.Hour), To: Base.Add(3 * time.Hour)}, []*audit.Entry{e4, e3}},
		{"minute bounds", audit.EntryQuery{From: Base.Add(10 * time.Minute), To: Base.Add(70 * time.Minute)}, []*audit.Entry{e2, e1}},
		{"bounds and filter", audit.EntryQuery{From: Base.Add(5 * time.Minute), Model: "fast"}, []*audit.Entry{e4, e1}},
		{"no match", audit.EntryQuery{Model: "nope"}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.q.Limit = 100
			p, err := s.ListEntries(c.q)
			if err != nil {
				t.Fatal(err)
			}
			eqStrings(t, "ids", pageIDs(p), idStrings(c.want...))
			if p.Total != len(c.want) {
				t.Fatalf("total = %d, want %d", p.Total, len(c.want))
			}
			// Every page of two adds up to the same list and total.
			var paged []string
			for off := 0; off < len(c.want)+2; off += 2 {
				q := c.q
				q.Limit, q.Offset = 2, off
				p, err := s.ListEntries(q)
				if err != nil {
					t.Fatal(err)
				}
				if p.Total != len(c.want) {
					t.Fatalf("offset %d: total = %d, want %d", off, p.Total, len(c.want))
				}
				paged = append(paged, pageIDs(p)...)
			}
			eqStrings(t, "paged ids", paged, idStrings(c.want...))
		})
	}
}

func testAuditHours(t *testing.T, open Open) {
	s := open(t)
	ok := EntryAt(Base.Add(5*time.Minute), 200)
	ok.DurationNs = int64(100 * time.Millisecond)
	ok2 := EntryAt(Base.Add(6*time.Minute), 201)
	ok2.DurationNs = int64(300 * time.Millisecond)
	cached := EntryAt(Base.Add(7*time.Minute), 200)
	cached.CacheType, cached.DurationNs = audit.CacheTypeExact, int64(time.Millisecond)
	failed := EntryAt(Base.Add(8*time.Minute), 502)
	failed.DurationNs = int64(2 * time.Second)
	refused := EntryAt(Base.Add(9*time.Minute), 401)
	refused.ProviderName, refused.DurationNs = "", int64(time.Millisecond)
	gone := EntryAt(Base.Add(70*time.Minute), 0)
	gone.DurationNs = int64(time.Second)
	MustAppend(t, s, ok, ok2, cached, failed, refused, gone)
	Flush(t, s)

	rows, err := s.AuditHours(Base, Base.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	want := []audit.AuditHour{
		{Hour: Base, Provider: "", StatusCounts: audit.StatusCounts{Requests: 1, Status4xx: 1}, DurationNs: int64(time.Millisecond)},
		{Hour: Base, Provider: "openai-main", StatusCounts: audit.StatusCounts{Requests: 4, Status2xx: 3, Status5xx: 1},
			DurationNs: int64(2401 * time.Millisecond), LatencyCount: 2, LatencyNs: int64(400 * time.Millisecond)},
		{Hour: Base.Add(time.Hour), Provider: "openai-main", StatusCounts: audit.StatusCounts{Requests: 1, StatusOther: 1},
			DurationNs: int64(time.Second)},
	}
	JSONEq(t, "hour rows", rows, want)
	if rows, _ := s.AuditHours(Base.Add(time.Hour), time.Time{}); len(rows) != 1 {
		t.Fatalf("open-ended range: %d rows", len(rows))
	}
	// A second batch adds to the rows the first wrote.
	more := EntryAt(Base.Add(75*time.Minute), 200)
	more.DurationNs = int64(time.Second)
	MustAppend(t, s, more)
	Flush(t, s)
	rows, _ = s.AuditHours(Base.Add(time.Hour), time.Time{})
	if len(rows) != 1 || rows[0].Requests != 2 || rows[0].Status2xx != 1 || rows[0].DurationNs != int64(2*time.Second) {
		t.Fatalf("after a second batch: %+v", rows)
	}
}

func testSessionEntryIDs(t *testing.T, open Open) {
	s := open(t)
	a1 := EntryAt(Base, 200)
	b1 := EntryAt(Base.Add(time.Minute), 200)
	b1.UserPath = "/other"
	a2 := EntryAt(Base.Add(2*time.Minute), 200)
	none := EntryAt(Base.Add(3*time.Minute), 200)
	none.SessionID = "s2"
	MustAppend(t, s, a2, a1, b1, none)
	Flush(t, s)
	got, err := s.SessionEntryIDs("/team/a", "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != a1.ID || got[1] != a2.ID {
		t.Fatalf("session ids = %v, want %v %v", got, a1.ID, a2.ID)
	}
	if got, _ := s.SessionEntryIDs("/team/a", "nope"); len(got) != 0 {
		t.Fatalf("unknown session: %v", got)
	}
}

func testDeleteEntriesBefore(t *testing.T, open Open) {
	s := open(t)
	var es []*audit.Entry
	for i := range 30 {
		es = append(es, EntryAt(Base.Add(time.Duration(i)*10*time.Minute), 200+i%4*100))
	}
	MustAppend(t, s, es...)
	Flush(t, s)

	cutoff := Base.Add(2 * time.Hour) // entries 0..11 go
	total := 0
	for {
		n, err := s.DeleteEntriesBefore(cutoff, 5)
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n < 5 {
			break
		}
	}
	if total != 12 {
		t.Fatalf("deleted %d, want 12", total)
	}
	for _, e := range es[:12] {
		if _, err := s.Entry(e.ID); !errors.Is(err, audit.ErrNotFound) {
			t.Fatalf("deleted entry still there: %v", err)
		}
	}
	p, err := s.ListEntries(audit.EntryQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if p.Total != 18 || len(p.Entries) != 18 {
		t.Fatalf("after retention: total %d, %d entries", p.Total, len(p.Entries))
	}
	p, _ = s.ListEntries(audit.EntryQuery{SessionID: "s1", Limit: 100})
	if p.Total != 18 {
		t.Fatalf("session filter total %d", p.Total)
	}
	if ids, _ := s.SessionEntryIDs("/team/a", "s1"); len(ids) != 18 {
		t.Fatalf("%d session entries left", len(ids))
	}
	rows, _ := s.AuditHours(time.Time{}, time.Time{})
	if len(rows) == 0 || rows[0].Hour.Before(cutoff) {
		t.Fatalf("hour rows before the cutoff kept: %+v", rows)
	}
}
