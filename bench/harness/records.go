package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Records compares, for one gateway, the requests the load generator sent
// with what the gateway recorded: every audited request must leave one
// audit entry and, when a provider answered it, one usage record.
type Records struct {
	// Target is the gateway target (modelgate, modelgate-budget).
	Target string `json:"target"`
	// Sent counts the requests the load generator started against the
	// target over the whole matrix, warm-ups included; Answered those that
	// got a status line back (what the gateway must have recorded).
	Sent     int `json:"sent"`
	Answered int `json:"answered"`
	// AuditStored and UsageStored count the audit entries and usage records
	// stored during the matrix: the store's totals after it (once the
	// writer has caught up) minus those before it.
	AuditStored int64 `json:"audit_stored"`
	UsageStored int64 `json:"usage_stored"`
	// AuditDropped and UsageDropped are the gateway's
	// modelgate_audit_dropped_total counters (kind entry and usage, summed
	// over the reasons): records dropped because the store's write queue
	// was full or the store refused them, since it started.
	AuditDropped int64 `json:"audit_dropped"`
	UsageDropped int64 `json:"usage_dropped"`
	// Error says why the counts could not be read, if they could not.
	Error string `json:"error,omitempty"`
}

// recordCounts are a gateway's stored and dropped record totals at one time.
type recordCounts struct {
	audit, usage               int64 // stored
	auditDropped, usageDropped int64
}

// readRecordCounts reads a gateway's totals: the audit log's total match
// count (GET /admin/audit/log?limit=1), the usage summary's total_requests
// (GET /admin/usage/summary, the last 30 days) and the drop counters from
// Caddy's admin /metrics.
func readRecordCounts(ctx context.Context, base, adminURL string) (recordCounts, error) {
	var rc recordCounts
	b, err := getJSON(ctx, base+"/admin/audit/log?limit=1", masterKey)
	if err != nil {
		return rc, err
	}
	var page struct {
		Total *int64 `json:"total"`
	}
	if err := json.Unmarshal(b, &page); err != nil || page.Total == nil {
		return rc, fmt.Errorf("audit log: no total in %.200s", b)
	}
	rc.audit = *page.Total
	if b, err = getJSON(ctx, base+"/admin/usage/summary", masterKey); err != nil {
		return rc, err
	}
	var sum struct {
		TotalRequests *int64 `json:"total_requests"`
	}
	if err := json.Unmarshal(b, &sum); err != nil || sum.TotalRequests == nil {
		return rc, fmt.Errorf("usage summary: no total_requests in %.200s", b)
	}
	rc.usage = *sum.TotalRequests
	if b, err = getJSON(ctx, adminURL+"/metrics", ""); err != nil {
		return rc, err
	}
	dropped, err := parseDropped(b)
	if err != nil {
		return rc, err
	}
	rc.auditDropped, rc.usageDropped = dropped["entry"], dropped["usage"]
	return rc, nil
}

// droppedMetric is the gateway's counter of records its store dropped.
const droppedMetric = "modelgate_audit_dropped_total"

// parseDropped reads droppedMetric from Prometheus text exposition,
// summed by its kind label over its reasons. Both kinds (entry, usage) must be present: a
// gateway without the counter cannot show that nothing was dropped.
func parseDropped(text []byte) (map[string]int64, error) {
	out := map[string]int64{}
	sc := bufio.NewScanner(bytes.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, droppedMetric+"{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "}")
		if !ok {
			return nil, fmt.Errorf("%s: malformed line %q", droppedMetric, line)
		}
		kind := ""
		for _, l := range strings.Split(labels, ",") {
			if k, v, ok := strings.Cut(l, "="); ok && strings.TrimSpace(k) == "kind" {
				kind = strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
		f := strings.Fields(value)
		if kind == "" || len(f) == 0 {
			return nil, fmt.Errorf("%s: malformed line %q", droppedMetric, line)
		}
		n, err := strconv.ParseFloat(f[0], 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s{kind=%q}: %q is not a count", droppedMetric, kind, f[0])
		}
		out[kind] += int64(n)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range []string{"entry", "usage"} {
		if _, ok := out[k]; !ok {
			return nil, fmt.Errorf("metrics lack %s{kind=%q}", droppedMetric, k)
		}
	}
	return out, nil
}

// settleRecords polls a gateway's counts until the store has caught up:
// until stored plus dropped reach the want figures (when want > 0), or
// the counts stay the same for stableFor, or timeout passes. It returns
// the last counts read.
func settleRecords(ctx context.Context, read func(context.Context) (recordCounts, error), want recordCounts, stableFor, timeout time.Duration) (recordCounts, error) {
	const every = 200 * time.Millisecond
	deadline := time.Now().Add(timeout)
	var last recordCounts
	var since time.Time
	for {
		rc, err := read(ctx)
		if err != nil {
			return rc, err
		}
		now := time.Now()
		if want.audit > 0 && rc.audit+rc.auditDropped >= want.audit && rc.usage+rc.usageDropped >= want.usage {
			return rc, nil
		}
		if since.IsZero() || rc != last {
			last, since = rc, now
		} else if now.Sub(since) >= stableFor {
			return rc, nil
		}
		if now.After(deadline) {
			return rc, nil
		}
		select {
		case <-ctx.Done():
			return rc, ctx.Err()
		case <-time.After(every):
		}
	}
}

// getJSON GETs url (with a bearer key when key is set) and returns the
// body of a 200 answer.
func getJSON(ctx context.Context, url, key string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %.300s", url, resp.Status, b)
	}
	return b, nil
}

// readFunc reads one gateway's record counts.
func (s *servers) readFunc(target string) func(context.Context) (recordCounts, error) {
	return func(ctx context.Context) (recordCounts, error) {
		return readRecordCounts(ctx, s.urls[target], s.adminURLs[target])
	}
}

// baselineRecords reads every gateway's counts before the matrix, once
// the records of the probes are written.
func baselineRecords(ctx context.Context, s *servers) (map[string]recordCounts, error) {
	out := map[string]recordCounts{}
	for _, t := range gatewayTargets {
		rc, err := settleRecords(ctx, s.readFunc(t), recordCounts{}, time.Second, 15*time.Second)
		if err != nil {
			return nil, fmt.Errorf("%s: reading record counts: %w", t, err)
		}
		out[t] = rc
	}
	return out, nil
}

// finalRecords reads every gateway's counts after the matrix, waiting for
// its store to catch up, and sets them against what the load generator
// sent to it.
func finalRecords(ctx context.Context, s *servers, cells []*Cell, base map[string]recordCounts) []Records {
	var out []Records
	for _, t := range gatewayTargets {
		r := sentTo(cells, t)
		b := base[t]
		want := recordCounts{audit: b.audit + int64(r.Answered), usage: b.usage + int64(r.Answered)}
		rc, err := settleRecords(ctx, s.readFunc(t), want, 3*time.Second, 60*time.Second)
		if err != nil {
			r.Error = err.Error()
		} else {
			r.AuditStored, r.UsageStored = rc.audit-b.audit, rc.usage-b.usage
			r.AuditDropped, r.UsageDropped = rc.auditDropped, rc.usageDropped
		}
		out = append(out, r)
	}
	return out
}

// sentTo sums the requests sent to target over every round of its cells.
func sentTo(cells []*Cell, target string) Records {
	r := Records{Target: target}
	for _, c := range cells {
		if c.Target != target {
			continue
		}
		for _, res := range c.Rounds {
			r.Sent += res.Sent
			r.Answered += res.Answered
		}
	}
	return r
}
