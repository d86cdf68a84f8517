package proxy

import (
	"cmp"
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// speech serves POST /v1/audio/speech: a JSON body whose model picks the
// provider, audio bytes back. It runs the path of the other JSON model
// endpoints (budgets, provider and model limits, upstream read limits).
func (s *Service) speech(w http.ResponseWriter, r *http.Request) {
	s.forward(w, r, ingressSpeech)
}

// refusedField turns an adapter's refusal of a request field into a 400
// invalid_request_error naming the field, code unsupported_feature; other
// errors pass unchanged.
func refusedField(err error) error {
	var re *providers.RequestError
	if errors.As(err, &re) {
		return apierr.InvalidRequest(re.Message).WithParam(re.Param).WithCode(cmp.Or(re.Code, "unsupported_feature"))
	}
	return err
}

// transcription serves POST /v1/audio/transcriptions: a multipart form
// whose model field picks the provider. The form goes upstream through
// the provider's Transcriber (as sent on OpenAI-compatible upstreams but
// for the model id, mapped on the voice provider); the answer comes back
// whole, or event by event when the upstream streams it, with its usage
// recorded when it reports some.
func (s *Service) transcription(w http.ResponseWriter, r *http.Request) {
	req, f, err := s.readTranscription(r)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	c, t, err := s.transcriptionCall(r, req, f)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	if refuseOverBudget(w, r, c) {
		return
	}
	// A failover route applies as for the other model endpoints: the next
	// target is tried when this one fails in a way failover covers, before
	// anything reached the client.
	// plan keeps the transcriber of the call it makes for try.
	plan := func(sub *request) (*call, error) {
		fc, ft, err := s.transcriptionCall(r, sub, f)
		if err == nil {
			t = ft
		}
		return fc, err
	}
	s.failover(w, r, req, c, s.failoverTargets(req, c), plan, func(c *call, last bool) error {
		return s.tryTranscription(w, r, c, t, f, last)
	})
}

// tryTranscription makes one transcription call for c and relays its
// answer. When last is false and the call fails in a way failover covers,
// before anything was written, it writes nothing and returns the error the
// client would get; otherwise it answers the client and returns nil.
func (s *Service) tryTranscription(w http.ResponseWriter, r *http.Request, c *call, t providers.Transcriber,
	f *providers.TranscriptionForm, last bool) error {
	var streamed bool
	return s.exchange(w, r, c, last, func(ctx context.Context) (*http.Response, error) {
		return t.Transcribe(ctx, c.model, f)
	}, func(resp *http.Response) bool {
		// A streamed transcription (stream=true) is relayed event by
		// event; its closing event carries the usage.
		streamed = IsEventStream(resp.Header)
		return streamed
	}, func(w http.ResponseWriter, resp *http.Response) {
		if streamed {
			c.info.Stream = true
			s.relayStream(w, r, resp, c)
			return
		}
		if body, ok := s.readAnswer(w, r, resp, c); ok {
			relayBody(w, resp, c, body)
		}
	})
}

// readTranscription reads the multipart form and its model into a
// request (no body: the form is kept as read).
func (s *Service) readTranscription(r *http.Request) (*request, *providers.TranscriptionForm, error) {
	f, err := readTranscriptionForm(r, s.MaxBodyBytes)
	if err != nil {
		return nil, nil, err
	}
	requested, _ := f.Get("model")
	if requested == "" {
		return nil, nil, apierr.InvalidRequest("missing required parameter: model").WithParam("model").WithCode(apierr.CodeMissingParameter)
	}
	info := reqinfo.From(r.Context())
	if info == nil {
		info = reqinfo.New()
	}
	// Recorded first, so a refusal still shows the model asked for.
	info.RequestedModel = catalog.RecordedModelID(requested)
	if err := checkModelID(requested); err != nil {
		return nil, nil, err
	}
	return &request{in: ingressTranscription, requested: requested, info: info}, f, nil
}

// transcriptionCall routes req's model as every model request is (through
// the virtual models; 403 model_access_denied when an access policy keeps
// it from the caller) and checks that the provider serves transcription
// and accepts the form's fields.
func (s *Service) transcriptionCall(r *http.Request, req *request, f *providers.TranscriptionForm) (*call, providers.Transcriber, error) {
	rt, err := s.route(r.Context(), req.info, req.requested)
	if err != nil {
		return nil, nil, err
	}
	p, model := rt.provider, rt.model
	t, ok := p.(providers.Transcriber)
	if !ok || !p.Supports(providers.EndpointTranscriptions) {
		return nil, nil, apierr.InvalidRequest("provider " + p.Name() + " (" + p.Type() + ") does not serve transcriptions").
			WithParam("model").WithCode("unsupported_endpoint")
	}
	if rc, ok := p.(providers.RequestChecker); ok {
		if err := refusedField(rc.CheckModel(providers.EndpointTranscriptions, model)); err != nil {
			return nil, nil, err
		}
		if err := refusedField(rc.CheckTranscription(f)); err != nil {
			return nil, nil, err
		}
	}
	c := &call{in: ingressTranscription, ep: providers.EndpointTranscriptions, provider: p, model: model, slowdown: rt.slowdown,
		svc: s}
	c.info = req.info
	c.info.ResolvedModel = model
	c.info.ProviderName = p.Name()
	c.info.ProviderType = p.Type()
	return c, t, nil
}

// ingressTranscription is the transcription endpoint; its body is a form,
// never planned as JSON.
var ingressTranscription = ingress{"transcriptions", providers.EndpointTranscriptions, false}

// readTranscriptionForm reads a multipart/form-data body of at most max
// bytes: 415 for another media type, 413 when too large, 400 when
// malformed or without a file part.
func readTranscriptionForm(r *http.Request, max int64) (*providers.TranscriptionForm, error) {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, apierr.New(http.StatusUnsupportedMediaType, apierr.TypeInvalidRequest,
			"this endpoint takes a multipart/form-data body").WithCode("unsupported_media_type")
	}
	if max > 0 && r.ContentLength > max {
		return nil, tooLarge(max)
	}
	var src io.Reader = r.Body
	if max > 0 {
		src = io.LimitReader(r.Body, max+1)
	}
	counted := &byteCounter{r: src}
	mr := multipart.NewReader(counted, params["boundary"])
	f := &providers.TranscriptionForm{}
	seenFile := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err == nil {
			var b []byte
			b, err = io.ReadAll(part)
			if err == nil {
				if part.FormName() == "file" && !seenFile {
					seenFile = true
					f.FileName, f.FileType, f.File = part.FileName(), part.Header.Get("Content-Type"), b
				} else if part.FormName() != "" && part.FileName() == "" {
					f.Fields = append(f.Fields, providers.FormField{Name: part.FormName(), Value: string(b)})
				}
			}
		}
		if max > 0 && counted.n > max {
			return nil, tooLarge(max)
		}
		if err != nil {
			return nil, apierr.MultipartError(err)
		}
	}
	if !seenFile {
		return nil, apierr.InvalidRequest("missing required parameter: file").WithParam("file").WithCode(apierr.CodeMissingParameter)
	}
	if strings.TrimSpace(f.FileName) == "" {
		f.FileName = "audio"
	}
	return f, nil
}

// byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
