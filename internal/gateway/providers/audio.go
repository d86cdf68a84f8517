package providers

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
)

// TranscriptionForm is a speech-to-text request as a client sends it in
// OpenAI's multipart shape: its form fields in the order sent and the
// audio file.
type TranscriptionForm struct {
	// Fields are the non-file form fields, in the order sent. A field sent
	// several times (timestamp_granularities[]) appears once per value.
	Fields []FormField
	// FileName is the audio part's file name.
	FileName string
	// FileType is the audio part's Content-Type ("" when not sent).
	FileType string
	// File is the audio.
	File []byte
}

// FormField is one non-file field of a multipart form.
type FormField struct {
	// Name is the field name as sent.
	Name string
	// Value is the field's value.
	Value string
}

// Get returns the first value of the field name (a trailing "[]" on the
// sent name is ignored) and whether it was sent.
func (f *TranscriptionForm) Get(name string) (string, bool) {
	for _, x := range f.Fields {
		if strings.TrimSuffix(x.Name, "[]") == name {
			return x.Value, true
		}
	}
	return "", false
}

// All returns every value of the field name (a trailing "[]" on the sent
// name is ignored), in the order sent.
func (f *TranscriptionForm) All(name string) []string {
	var out []string
	for _, x := range f.Fields {
		if strings.TrimSuffix(x.Name, "[]") == name {
			out = append(out, x.Value)
		}
	}
	return out
}

// Set replaces every value of the field name by value, or appends it.
func (f *TranscriptionForm) Set(name, value string) {
	out := f.Fields[:0:0]
	set := false
	for _, x := range f.Fields {
		if strings.TrimSuffix(x.Name, "[]") == name {
			if set {
				continue
			}
			x.Value, set = value, true
		}
		out = append(out, x)
	}
	if !set {
		out = append(out, FormField{Name: name, Value: value})
	}
	f.Fields = out
}

// Encode writes the form as multipart/form-data, the fields first and the
// file last under fileField, and returns the body and its Content-Type.
func (f *TranscriptionForm) Encode(fields []FormField, fileField string) ([]byte, string, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, x := range fields {
		if err := mw.WriteField(x.Name, x.Value); err != nil {
			return nil, "", err
		}
	}
	h := make(textproto.MIMEHeader)
	h.Set("Content-Disposition", multipart.FileContentDisposition(fileField, f.FileName))
	ct := f.FileType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	part, err := mw.CreatePart(h)
	if err != nil {
		return nil, "", err
	}
	if _, err := part.Write(f.File); err != nil {
		return nil, "", err
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return b.Bytes(), mw.FormDataContentType(), nil
}

// Transcriber is implemented by adapters that serve speech to text.
type Transcriber interface {
	// Transcribe sends the transcription request f for the upstream model
	// id model and returns the answer in OpenAI's shape; the caller closes
	// its body.
	Transcribe(ctx context.Context, model string, f *TranscriptionForm) (*http.Response, error)
}

// RequestChecker is implemented by adapters that refuse, before anything
// is sent upstream, request fields their upstream cannot honour.
type RequestChecker interface {
	// CheckJSON checks an OpenAI-shaped JSON body for ep; a refusal is a
	// *RequestError.
	CheckJSON(ep Endpoint, body []byte) error
	// CheckTranscription checks a transcription form; a refusal is a
	// *RequestError.
	CheckTranscription(f *TranscriptionForm) error
	// CheckModel checks that the upstream model id model serves ep; a
	// refusal is a *RequestError with code CodeUnsupportedEndpoint.
	CheckModel(ep Endpoint, model string) error
}

// RequestError is a request field an upstream cannot honour: the client
// gets 400 invalid_request_error naming Param.
type RequestError struct {
	// Param is the offending field.
	Param string
	// Code is the error code: "" for a field or value the provider does
	// not support (unsupported_feature), CodeMissingParameter for a
	// required field left out, CodeInvalidValue for a value of the wrong
	// type.
	Code string
	// Message says why, for the client.
	Message string
}

// Codes of a RequestError besides unsupported_feature.
const (
	// CodeMissingParameter is a required field left out.
	CodeMissingParameter = "missing_required_parameter"
	// CodeInvalidValue is a field whose value has the wrong type.
	CodeInvalidValue = "invalid_value"
	// CodeUnsupportedEndpoint is a model that does not serve the
	// endpoint asked.
	CodeUnsupportedEndpoint = "unsupported_endpoint"
)

// Error implements error.
func (e *RequestError) Error() string { return e.Message }

// Transcribe implements Transcriber: the form goes upstream as sent, but
// for model, which becomes the upstream's id.
func (p *OpenAICompat) Transcribe(ctx context.Context, model string, f *TranscriptionForm) (*http.Response, error) {
	g := *f
	g.Fields = append([]FormField(nil), f.Fields...)
	g.Set("model", model)
	body, ct, err := g.Encode(g.Fields, "file")
	if err != nil {
		return nil, err
	}
	h := http.Header{"Content-Type": {ct}}
	if p.t.Deployments {
		// Deployment-style URLs name the model in the path.
		u := p.endpointURL(EndpointTranscriptions, model)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header = h
		p.setHeaders(req.Header)
		injectTrace(req)
		return p.client.Do(req)
	}
	return p.Relay(ctx, RawRequest{Method: http.MethodPost, Path: string(EndpointTranscriptions), Header: h,
		Body: bytes.NewReader(body), ContentLength: int64(len(body))})
}
