package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	stored "github.com/modelgate/modelgate/internal/domain/responses"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/responses"
	"github.com/modelgate/modelgate/internal/platform/sse"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// ResponseStore keeps the answers of POST /v1/responses
// (stored.Service).
type ResponseStore interface {
	// Keep queues r for storage; it is readable at once.
	Keep(r *stored.Record)
	// Get returns the record id of userPath, or stored.ErrNotFound.
	Get(userPath, id string) (*stored.Record, error)
	// Chain returns the conversation previous_response_id id of userPath
	// continues: every input and output item of its chain, oldest first.
	Chain(userPath, id string) ([]json.RawMessage, error)
}

// keeping is how a Responses call's answer is stored: a translated one
// whole under the id the gateway gives it, a native one as the id its
// provider gave it.
type keeping struct {
	store    ResponseStore
	userPath string
	provider string
	native   bool
	id       string // translated: the id given; native: the provider's, once seen
	prev     string // the previous_response_id the request continues
	input    []byte // the request's own input (raw JSON), a copy
	response []byte // translated: the final response object, once seen
}

// stored is the Stored a translated answer is written with.
func (k *keeping) stored() *responses.Stored {
	if k == nil {
		return nil
	}
	return &responses.Stored{ID: k.id, PreviousID: k.prev}
}

// prepareResponses reads a Responses request's store flag and
// previous_response_id for the call c on provider p. A previous response
// the gateway keeps is replayed: its chain's items go ahead of the
// request's input and previous_response_id is dropped, so that any
// provider continues it; one its provider keeps passes on to that
// provider only. It returns the body to send and how to store the answer
// (nil: not stored).
func (s *Service) prepareResponses(req *request, p providers.Provider, body []byte) ([]byte, *keeping, error) {
	if s.Responses == nil {
		return body, nil, nil
	}
	store := string(bytes.TrimSpace(req.fields.Store)) != "false"
	prev := gjson.ParseBytes(req.fields.PreviousResponseID).Str
	if !store && prev == "" {
		return body, nil, nil
	}
	native := p.Supports(providers.EndpointResponses)
	k := &keeping{store: s.Responses, userPath: req.info.UserPath, provider: p.Name(), native: native, prev: prev}
	if prev != "" {
		rec, err := s.Responses.Get(k.userPath, prev)
		if err != nil {
			return nil, nil, previousError(prev, err)
		}
		switch {
		case rec.Native && (!native || rec.Provider != p.Name()):
			return nil, nil, apierr.InvalidRequest("previous response '" + prev + "' is kept by provider " + rec.Provider +
				" and can be continued only there").WithParam("previous_response_id").WithCode("unsupported_feature")
		case rec.Native:
			// The provider continues its own response.
		default:
			items, err := s.Responses.Chain(k.userPath, prev)
			if err != nil {
				return nil, nil, previousError(prev, err)
			}
			if body, err = replay(body, items, req.fields.Input); err != nil {
				return nil, nil, apierr.InvalidRequest("could not continue the previous response: " + err.Error()).
					WithParam("previous_response_id")
			}
			if native {
				k.prev = "" // the provider sees a new conversation
			}
		}
	}
	if !store {
		return body, nil, nil
	}
	if !native {
		k.id = stored.NewID()
	}
	k.input = bytes.Clone(req.fields.Input)
	return body, k, nil
}

// previousError is the answer to a previous_response_id the caller cannot
// continue: OpenAI's 400 previous_response_not_found for an id it cannot
// see.
func previousError(id string, err error) error {
	if errors.Is(err, stored.ErrNotFound) {
		return apierr.InvalidRequest("Previous response with id '" + id + "' not found.").
			WithParam("previous_response_id").WithCode("previous_response_not_found")
	}
	if errors.Is(err, stored.ErrNotKept) {
		return apierr.InvalidRequest("a response before '" + id + "' is kept by its provider; the gateway cannot replay it").
			WithParam("previous_response_id").WithCode("unsupported_feature")
	}
	return apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider, "stored responses cannot be read right now").
		WithCode("storage_unavailable")
}

// replay returns body with input holding items followed by the request's
// own input (a string input as one user message) and without
// previous_response_id.
func replay(body []byte, items []json.RawMessage, input []byte) ([]byte, error) {
	own := gjson.ParseBytes(input)
	all := make([]json.RawMessage, 0, len(items)+4)
	all = append(all, items...)
	switch {
	case own.Type == gjson.String:
		msg, _ := json.Marshal(map[string]string{"role": "user", "content": own.Str})
		all = append(all, msg)
	case own.IsArray():
		for _, it := range own.Array() {
			all = append(all, json.RawMessage(it.Raw))
		}
	}
	joined, err := json.Marshal(all)
	if err != nil {
		return nil, err
	}
	if body, err = sjson.SetRawBytes(body, "input", joined); err != nil {
		return nil, err
	}
	return sjson.DeleteBytes(body, "previous_response_id")
}

// keepTranslated records the final response object of a translated
// answer, out, once the answer reached its end.
func (k *keeping) keepTranslated(out []byte) {
	if k == nil || k.native {
		return
	}
	k.response = bytes.Clone(out)
	k.keep()
}

// watchTranslated looks for the terminal event of a translated stream
// (response.completed, response.incomplete or response.failed) in b, a
// run of events about to be sent, and keeps its response object.
func (k *keeping) watchTranslated(b []byte) {
	if k == nil || k.native || k.response != nil || !bytes.Contains(b, []byte(`"response.`)) {
		return
	}
	sse.EachData(b, func(data []byte) {
		switch gjson.GetBytes(data, "type").Str {
		case "response.completed", "response.incomplete", "response.failed":
			if r := gjson.GetBytes(data, "response"); r.IsObject() {
				k.response = []byte(r.Raw)
			}
		}
	})
	if k.response != nil {
		k.response = bytes.Clone(k.response)
		k.keep()
	}
}

// watched is watchTranslated that returns b.
func (k *keeping) watched(b []byte) []byte {
	k.watchTranslated(b)
	return b
}

// watchNative looks for the provider's response id in the event ev of a
// native stream (response.created comes first) and keeps the record once
// it is seen.
func (k *keeping) watchNative(ev []byte) {
	if k == nil || !k.native || k.id != "" {
		return
	}
	data, _ := sse.FirstData(ev)
	if !bytes.Contains(data, []byte(`"response.created"`)) {
		return
	}
	if id := gjson.GetBytes(data, "response.id").Str; id != "" {
		k.id = id
		k.keep()
	}
}

// keepNative keeps the record of a native answer body.
func (k *keeping) keepNative(body []byte) {
	if k == nil || !k.native || k.id != "" {
		return
	}
	if id := gjson.GetBytes(body, "id").Str; id != "" {
		k.id = id
		k.keep()
	}
}

// keep hands the record to the store.
func (k *keeping) keep() {
	rec := &stored.Record{ID: k.id, UserPath: k.userPath, Provider: k.provider, Native: k.native, PreviousID: k.prev}
	if !k.native {
		rec.Input, rec.Response = k.input, k.response
	}
	k.store.Keep(rec)
}
