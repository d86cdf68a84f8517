package batches

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"

	"github.com/modelgate/modelgate/internal/domain/catalog"
)

// Endpoints are the API paths a batch may call.
var Endpoints = []string{"/v1/chat/completions", "/v1/embeddings"}

// MessagesEndpoint is the API path every line of a message batch calls.
const MessagesEndpoint = "/v1/messages"

// supportedEndpoint reports whether a batch may call ep.
func supportedEndpoint(ep string) bool { return slices.Contains(Endpoints, ep) }

// Line is one request line of an input file.
type Line struct {
	// CustomID is the caller's id for the line, unique in the file.
	CustomID string
	// URL is the API path the line calls.
	URL string
	// Model is the body's model.
	Model string
	// Body is the request body, a JSON object.
	Body []byte
}

// ParseInput reads a JSONL input file: one request object per non-empty
// line, each with a custom_id unique in the file, method POST, a url
// naming a supported endpoint and a body object with a model. The error
// names the first bad line (counted from 1).
func ParseInput(content []byte) ([]Line, error) {
	return parseLines(content, Endpoints, "/v1/chat/completions or /v1/embeddings")
}

// parseLines is ParseInput for lines that may call one of endpoints
// (named so in the error).
func parseLines(content []byte, endpoints []string, named string) ([]Line, error) {
	var lines []Line
	seen := make(map[string]bool)
	n := 0
	for len(content) > 0 {
		var raw []byte
		raw, content, _ = bytes.Cut(content, []byte("\n"))
		n++
		raw = bytes.TrimSpace(raw)
		if len(raw) == 0 {
			continue
		}
		if !gjson.ValidBytes(raw) {
			return nil, fmt.Errorf("line %d is not valid JSON", n)
		}
		f := gjson.GetManyBytes(raw, "custom_id", "method", "url", "body", "body.model")
		switch {
		case f[0].Type != gjson.String || f[0].Str == "":
			return nil, fmt.Errorf("line %d: custom_id must be a non-empty string", n)
		case seen[f[0].Str]:
			return nil, fmt.Errorf("line %d: custom_id %q is used twice", n, f[0].Str)
		case f[1].Str != "POST":
			return nil, fmt.Errorf("line %d: method must be POST", n)
		case !slices.Contains(endpoints, f[2].Str):
			return nil, fmt.Errorf("line %d: url must be %s", n, named)
		case !f[3].IsObject():
			return nil, fmt.Errorf("line %d: body must be a JSON object", n)
		case f[4].Type != gjson.String || f[4].Str == "":
			return nil, fmt.Errorf("line %d: body.model must be a non-empty string", n)
		}
		if err := catalog.CheckModelID(f[4].Str); err != nil {
			return nil, fmt.Errorf("line %d: body.%v", n, err)
		}
		seen[f[0].Str] = true
		lines = append(lines, Line{CustomID: f[0].Str, URL: f[2].Str, Model: f[4].Str, Body: []byte(f[3].Raw)})
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("the file has no request lines")
	}
	return lines, nil
}

// inputLines reads the request lines of b from its input file: an
// uploaded file's lines, or a message batch's requests.
func (s *Service) inputLines(b *Batch) ([]Line, error) {
	content, err := s.st.FileContent(b.InputFileID)
	if err != nil {
		return nil, err
	}
	if b.Kind == KindMessages {
		return parseLines(content, []string{MessagesEndpoint}, MessagesEndpoint)
	}
	return ParseInput(content)
}
