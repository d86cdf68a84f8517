package batches

import "time"

// Processing statuses of a message batch, as Anthropic names them.
const (
	ProcessingInProgress = "in_progress"
	ProcessingCanceling  = "canceling"
	ProcessingEnded      = "ended"
)

// messageBatchView is a message batch in Anthropic's shape; its times are
// RFC 3339 strings.
type messageBatchView struct {
	ID                string            `json:"id"`
	Type              string            `json:"type"`
	ProcessingStatus  string            `json:"processing_status"`
	RequestCounts     messageCountsView `json:"request_counts"`
	EndedAt           *string           `json:"ended_at"`
	CreatedAt         string            `json:"created_at"`
	ExpiresAt         string            `json:"expires_at"`
	ArchivedAt        *string           `json:"archived_at"`
	CancelInitiatedAt *string           `json:"cancel_initiated_at"`
	ResultsURL        *string           `json:"results_url"`
}

// messageCountsView is a message batch's requests by state; they add up to
// its number of requests.
type messageCountsView struct {
	Processing int `json:"processing"`
	Succeeded  int `json:"succeeded"`
	Errored    int `json:"errored"`
	Canceled   int `json:"canceled"`
	Expired    int `json:"expired"`
}

// messageListView is a page of message batches.
type messageListView struct {
	Data    []messageBatchView `json:"data"`
	HasMore bool               `json:"has_more"`
	FirstID *string            `json:"first_id"`
	LastID  *string            `json:"last_id"`
}

// messageDeletedView is the answer to a message batch's deletion.
type messageDeletedView struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// rfc3339 is the Unix time t as an RFC 3339 string in UTC.
func rfc3339(t int64) string { return time.Unix(t, 0).UTC().Format(time.RFC3339) }

// optionalTime is rfc3339(t), nil for 0.
func optionalTime(t int64) *string {
	if t == 0 {
		return nil
	}
	s := rfc3339(t)
	return &s
}

// viewMessageBatch is b in Anthropic's shape; resultsURL is where its
// results are read once it has ended.
func viewMessageBatch(b *Batch, resultsURL string) messageBatchView {
	v := messageBatchView{
		ID: b.ID, Type: "message_batch", ProcessingStatus: ProcessingInProgress,
		CreatedAt: rfc3339(b.CreatedAt), ExpiresAt: rfc3339(b.ExpiresAt),
		CancelInitiatedAt: optionalTime(b.CancellingAt),
		RequestCounts:     messageCountsView{Succeeded: b.Completed, Errored: b.Failed},
	}
	rest := max(b.Total-b.Completed-b.Failed, 0)
	switch {
	case b.Finished():
		v.ProcessingStatus = ProcessingEnded
		ended := b.CompletedAt
		for _, t := range []int64{b.CancelledAt, b.FailedAt, b.FinalizingAt} {
			if ended == 0 {
				ended = t
			}
		}
		v.EndedAt = optionalTime(ended)
		v.ResultsURL = &resultsURL
		switch b.Status {
		case StatusCancelled:
			v.RequestCounts.Canceled = rest
		case StatusExpired:
			v.RequestCounts.Expired = rest
		default:
			v.RequestCounts.Errored += rest
		}
	case b.Status == StatusCancelling:
		v.ProcessingStatus = ProcessingCanceling
		v.RequestCounts.Processing = rest
	default:
		v.RequestCounts.Processing = rest
	}
	return v
}
