package providers

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// anthropicBatchesPath is the Message Batches API under the base URL.
const anthropicBatchesPath = "/messages/batches"

// BatchesOf implements BatchAPI: Anthropic's Message Batches API runs
// Messages calls.
func (p *Anthropic) BatchesOf(endpoint string) bool { return endpoint == "/v1/messages" }

// batchCaller returns the caller of the upstream's Message Batches API.
func (p *Anthropic) batchCaller() batchCaller {
	return batchCaller{client: p.client, baseURL: p.baseURL, setHeaders: p.setHeaders, key: p.key}
}

// SubmitBatch implements BatchAPI: input's lines (each a custom_id and a
// Messages body) go up as the requests of one message batch.
func (p *Anthropic) SubmitBatch(ctx context.Context, endpoint string, input []byte) (string, error) {
	if !p.Supports(EndpointBatches) || !p.BatchesOf(endpoint) {
		return "", fmt.Errorf("provider %s has no batch API for %s", p.name, endpoint)
	}
	var body bytes.Buffer
	body.WriteString(`{"requests":[`)
	n := 0
	err := eachLine(input, func(line []byte) error {
		f := gjson.GetManyBytes(line, "custom_id", "body")
		req, err := sjson.SetBytes([]byte(`{}`), "custom_id", f[0].Str)
		if err == nil {
			req, err = sjson.SetRawBytes(req, "params", []byte(f[1].Raw))
		}
		if err != nil || !f[1].IsObject() {
			return fmt.Errorf("batch input line %d is not a request", n+1)
		}
		if n > 0 {
			body.WriteByte(',')
		}
		body.Write(req)
		n++
		return nil
	})
	if err != nil {
		return "", err
	}
	body.WriteString(`]}`)
	created, err := p.batchCaller().call(ctx, http.MethodPost, anthropicBatchesPath, "application/json", body.Bytes())
	if err != nil {
		return "", fmt.Errorf("creating the message batch: %w", err)
	}
	id := gjson.GetBytes(created, "id").Str
	if id == "" {
		return "", fmt.Errorf("creating the message batch: the answer has no id")
	}
	return id, nil
}

// Batch implements BatchAPI: the message batch's processing status and
// counts in OpenAI's terms. An ended batch is cancelled when its cancel
// was asked, expired when requests expired, completed otherwise; its
// results are its OutputFileID (the batch id, for BatchFile). Succeeded
// requests count as completed, errored ones as failed; all five counts
// make the total.
func (p *Anthropic) Batch(ctx context.Context, id string) (UpstreamBatch, error) {
	b, err := p.batchCaller().call(ctx, http.MethodGet, anthropicBatchesPath+"/"+url.PathEscape(id), "", nil)
	if err != nil {
		return UpstreamBatch{}, err
	}
	f := gjson.GetManyBytes(b, "processing_status", "request_counts.processing", "request_counts.succeeded",
		"request_counts.errored", "request_counts.canceled", "request_counts.expired", "cancel_initiated_at")
	out := UpstreamBatch{Completed: int(f[2].Int()), Failed: int(f[3].Int())}
	out.Total = int(f[1].Int()) + out.Completed + out.Failed + int(f[4].Int()) + int(f[5].Int())
	switch f[0].Str {
	case "in_progress":
		out.Status = "in_progress"
	case "canceling":
		out.Status = "cancelling"
	case "ended":
		out.OutputFileID = id
		switch {
		case f[6].Str != "":
			out.Status = "cancelled"
		case f[5].Int() > 0:
			out.Status = "expired"
		default:
			out.Status = "completed"
		}
	default:
		return UpstreamBatch{}, fmt.Errorf("message batch %s: unknown processing_status %q", id, f[0].Str)
	}
	return out, nil
}

// CancelBatch implements BatchAPI.
func (p *Anthropic) CancelBatch(ctx context.Context, id string) error {
	_, err := p.batchCaller().call(ctx, http.MethodPost, anthropicBatchesPath+"/"+url.PathEscape(id)+"/cancel", "", nil)
	return err
}

// BatchFile implements BatchAPI: the results of message batch id, each
// succeeded or errored result as an output line whose response carries
// the message, or the error envelope with the status its type stands
// for. Canceled and expired requests never ran: they have no line.
func (p *Anthropic) BatchFile(ctx context.Context, id string) ([]byte, error) {
	res, err := p.batchCaller().call(ctx, http.MethodGet, anthropicBatchesPath+"/"+url.PathEscape(id)+"/results", "", nil)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	err = eachLine(res, func(line []byte) error {
		f := gjson.GetManyBytes(line, "custom_id", "result.type", "result.message", "result.error", "result.error.error.type")
		var status int
		var answer gjson.Result
		switch f[1].Str {
		case "succeeded":
			status, answer = http.StatusOK, f[2]
		case "errored":
			status, answer = anthropicErrorStatus(f[4].Str), f[3]
		default:
			return nil
		}
		l, err := sjson.SetBytes([]byte(`{}`), "custom_id", f[0].Str)
		if err == nil {
			l, err = sjson.SetBytes(l, "response.status_code", status)
		}
		if err == nil && answer.IsObject() {
			l, err = sjson.SetRawBytes(l, "response.body", []byte(answer.Raw))
		}
		if err != nil {
			return err
		}
		out.Write(l)
		out.WriteByte('\n')
		return nil
	})
	return out.Bytes(), err
}

// eachLine calls fn with every non-blank line of the JSON Lines data,
// trimmed, until fn fails.
func eachLine(data []byte, fn func(line []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxBatchFileBytes)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			if err := fn(line); err != nil {
				return err
			}
		}
	}
	return sc.Err()
}

// anthropicErrorStatus is the HTTP status Anthropic answers an error of
// type typ with.
func anthropicErrorStatus(typ string) int {
	switch typ {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "overloaded_error":
		return 529
	}
	return http.StatusInternalServerError
}
