package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// EndpointBatches is the upstream's own files and batches API: the
// upstream runs a JSONL file of requests in the background.
const EndpointBatches Endpoint = "batches"

// maxBatchFileBytes bounds a result file read from an upstream.
const maxBatchFileBytes = 256 << 20

// UpstreamBatch is the state of a batch an upstream runs.
type UpstreamBatch struct {
	// Status is the upstream's status (validating, in_progress,
	// finalizing, completed, failed, expired, cancelling, cancelled).
	Status string
	// Total, Completed and Failed count its requests.
	Total, Completed, Failed int
	// OutputFileID and ErrorFileID are its result files, "" until written.
	OutputFileID, ErrorFileID string
	// Error is the first reason a failed batch gives.
	Error string
}

// BatchAPI is a provider whose upstream runs batches itself.
type BatchAPI interface {
	// BatchesOf reports whether the upstream's batch API runs requests to
	// endpoint (a gateway path such as /v1/chat/completions).
	BatchesOf(endpoint string) bool
	// SubmitBatch starts a batch of input (a JSONL file of requests to
	// endpoint, in OpenAI's input file shape) on the upstream; it returns
	// the upstream's batch id.
	SubmitBatch(ctx context.Context, endpoint string, input []byte) (string, error)
	// Batch returns the upstream batch's state.
	Batch(ctx context.Context, id string) (UpstreamBatch, error)
	// CancelBatch asks the upstream to cancel the batch.
	CancelBatch(ctx context.Context, id string) error
	// BatchFile returns the content of one of the upstream's result
	// files (UpstreamBatch.OutputFileID, ErrorFileID), in OpenAI's output
	// file shape.
	BatchFile(ctx context.Context, id string) ([]byte, error)
}

// BatchesOf implements BatchAPI: OpenAI's batch API runs chat
// completions and embeddings.
func (p *OpenAICompat) BatchesOf(endpoint string) bool {
	return endpoint == "/v1/chat/completions" || endpoint == "/v1/embeddings"
}

// SubmitBatch implements BatchAPI for types that list EndpointBatches.
func (p *OpenAICompat) SubmitBatch(ctx context.Context, endpoint string, input []byte) (string, error) {
	if !p.Supports(EndpointBatches) || p.t.Deployments {
		return "", fmt.Errorf("provider %s has no batch API", p.name)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("purpose", "batch")
	fw, err := mw.CreateFormFile("file", "batch_input.jsonl")
	if err != nil {
		return "", err
	}
	_, _ = fw.Write(input)
	if err := mw.Close(); err != nil {
		return "", err
	}
	file, err := p.batchCall(ctx, http.MethodPost, "/files", mw.FormDataContentType(), body.Bytes())
	if err != nil {
		return "", fmt.Errorf("uploading the input file: %w", err)
	}
	req, _ := json.Marshal(map[string]string{"input_file_id": gjson.GetBytes(file, "id").Str,
		"endpoint": endpoint, "completion_window": "24h"})
	created, err := p.batchCall(ctx, http.MethodPost, "/batches", "application/json", req)
	if err != nil {
		return "", fmt.Errorf("creating the batch: %w", err)
	}
	id := gjson.GetBytes(created, "id").Str
	if id == "" {
		return "", fmt.Errorf("creating the batch: the answer has no id")
	}
	return id, nil
}

// Batch implements BatchAPI.
func (p *OpenAICompat) Batch(ctx context.Context, id string) (UpstreamBatch, error) {
	b, err := p.batchCall(ctx, http.MethodGet, "/batches/"+url.PathEscape(id), "", nil)
	if err != nil {
		return UpstreamBatch{}, err
	}
	f := gjson.GetManyBytes(b, "status", "request_counts.total", "request_counts.completed", "request_counts.failed",
		"output_file_id", "error_file_id", "errors.data.0.message")
	return UpstreamBatch{Status: f[0].Str, Total: int(f[1].Int()), Completed: int(f[2].Int()), Failed: int(f[3].Int()),
		OutputFileID: f[4].Str, ErrorFileID: f[5].Str, Error: f[6].Str}, nil
}

// CancelBatch implements BatchAPI.
func (p *OpenAICompat) CancelBatch(ctx context.Context, id string) error {
	_, err := p.batchCall(ctx, http.MethodPost, "/batches/"+url.PathEscape(id)+"/cancel", "", nil)
	return err
}

// BatchFile implements BatchAPI.
func (p *OpenAICompat) BatchFile(ctx context.Context, id string) ([]byte, error) {
	return p.batchCall(ctx, http.MethodGet, "/files/"+url.PathEscape(id)+"/content", "", nil)
}

// batchCall sends one request of the files and batches API.
func (p *OpenAICompat) batchCall(ctx context.Context, method, path, contentType string, body []byte) ([]byte, error) {
	return batchCaller{client: p.client, baseURL: p.baseURL, setHeaders: p.setHeaders, key: p.key}.
		call(ctx, method, path, contentType, body)
}

// batchCaller sends the calls of an upstream's batch API.
type batchCaller struct {
	client     *http.Client
	baseURL    string
	setHeaders func(http.Header)
	// key is the provider's API key, removed from the upstream's words.
	key string
}

// call sends one request to baseURL+path and returns the answer's body;
// an error status, or a redirect (never followed), is a
// *BatchStatusError naming it.
func (c batchCaller) call(ctx context.Context, method, path, contentType string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, rd)
	if err != nil {
		return nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	c.setHeaders(req.Header)
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, maxBatchFileBytes))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 400 || IsRedirect(resp.StatusCode) {
		return nil, fmt.Errorf("%s %s: %w", method, path, c.statusError(resp, out))
	}
	return out, nil
}

// BatchStatusError is an error answer of an upstream's files and batches
// API: its status, and its message and code with the provider's key
// removed. The message of a 401 or 403 is replaced, since upstreams quote
// part of the key in it.
type BatchStatusError struct {
	// Status is the upstream's HTTP status.
	Status int
	// Message is what the upstream said, or the status text.
	Message string
	// Code is the upstream's error code, "" when it gave none.
	Code string
	// RetryAfter is the upstream's Retry-After header, as sent; for a 429
	// without one, the wait its rate-limit reset headers give (see
	// RetryAfter), or "".
	RetryAfter string
}

// Error implements error.
func (e *BatchStatusError) Error() string {
	return "status " + strconv.Itoa(e.Status) + ": " + e.Message
}

// UpstreamStatus returns the upstream's HTTP status.
func (e *BatchStatusError) UpstreamStatus() int { return e.Status }

// UpstreamCode returns the upstream's error code.
func (e *BatchStatusError) UpstreamCode() string { return e.Code }

// UpstreamRetryAfter returns the upstream's Retry-After header.
func (e *BatchStatusError) UpstreamRetryAfter() string { return e.RetryAfter }

// statusError reads an error answer of the batch API.
func (c batchCaller) statusError(resp *http.Response, body []byte) *BatchStatusError {
	e := &BatchStatusError{Status: resp.StatusCode, RetryAfter: strings.TrimSpace(resp.Header.Get("Retry-After"))}
	if resp.StatusCode == http.StatusTooManyRequests {
		e.RetryAfter = RetryAfter(resp.Header, time.Now())
	}
	if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
		e.Message = "the upstream refused the gateway's credentials"
		e.Code = "upstream_auth_failed"
		return e
	}
	if IsRedirect(resp.StatusCode) {
		e.Message = "redirect not followed"
		e.Code = "upstream_redirect"
		return e
	}
	f := gjson.GetManyBytes(body, "error.message", "error.code")
	e.Message, e.Code = withoutKey(c.key, f[0].Str), withoutKey(c.key, f[1].Str)
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

// Redacted is what stands in text relayed from an upstream where a
// provider credential was.
const Redacted = "[redacted]"

// withoutKey is s with the API key replaced by Redacted.
func withoutKey(key, s string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, Redacted)
}
