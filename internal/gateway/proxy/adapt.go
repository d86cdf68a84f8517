package proxy

import (
	"net/http"
	"strconv"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/responses"
	"github.com/modelgate/modelgate/internal/request/apierr"
)

// ingress is the API shape a client used.
type ingress struct {
	name    string
	native  providers.Endpoint // the upstream endpoint of the same shape
	streams bool               // the shape has a stream flag
}

var (
	ingressChat        = ingress{"chat completions", providers.EndpointChat, true}
	ingressEmbeddings  = ingress{"embeddings", providers.EndpointEmbeddings, false}
	ingressMessages    = ingress{"messages", providers.EndpointMessages, true}
	ingressResponses   = ingress{"responses", providers.EndpointResponses, true}
	ingressCountTokens = ingress{"count_tokens", providers.EndpointCountTokens, false}
	ingressSpeech      = ingress{"speech", providers.EndpointSpeech, false}
)

// defaultMaxTokens is sent to Anthropic, which requires max_tokens, when a
// chat client set none.
const defaultMaxTokens = 4096

// adapt decides how c reaches its provider: natively (the body passes
// through), through translation onto the provider's shape, or answered
// locally (a token estimate). It fills c.ep, c.body and c.tr.
func (s *Service) adapt(c *call) error {
	p := c.provider
	if p.Supports(c.in.native) {
		c.ep = c.in.native
		if rc, ok := p.(providers.RequestChecker); ok {
			if err := rc.CheckModel(c.ep, c.model); err != nil {
				return refusedField(err)
			}
			return refusedField(rc.CheckJSON(c.ep, c.body))
		}
		return nil
	}
	var err error
	switch {
	case c.in == ingressChat && p.Shape() == providers.ShapeMessages:
		c.ep = providers.EndpointMessages
		c.body, c.revisions, err = anthropic.ChatToMessagesRequestRevised(c.body, defaultMaxTokens)
		c.tr = &translation{
			response: func(up []byte) ([]byte, catalog.Usage, error) {
				return anthropic.MessagesToChatResponse(up, c.model)
			},
			stream: func() translate.Stream { return anthropic.NewMessagesToChatStream(c.model, c.wantUsage) },
		}
	case c.in == ingressMessages && p.Shape() == providers.ShapeChat:
		orig := c.body
		c.ep = providers.EndpointChat
		// The client's body stays as it is (the audit records it), so
		// the translation may leave its long strings there.
		c.body = nil
		c.parts, err = anthropic.MessagesToChatRequestParts(orig, chatTarget(p))
		c.tr = &translation{
			response: func(up []byte) ([]byte, catalog.Usage, error) {
				return anthropic.ChatToMessagesResponse(up, c.model)
			},
			stream: func() translate.Stream { return anthropic.NewChatToMessagesStream(c.model, orig) },
		}
	case c.in == ingressResponses && p.Shape() == providers.ShapeChat:
		orig := c.body
		c.ep = providers.EndpointChat
		c.body, c.revisions, err = responses.ResponsesToChatRequestRevised(orig, chatTarget(p))
		c.tr = &translation{
			response: func(up []byte) ([]byte, catalog.Usage, error) {
				return responses.ChatToResponsesResponseStored(up, orig, c.keep.stored())
			},
			stream: func() translate.Stream { return responses.NewChatToResponsesStreamStored(orig, c.keep.stored()) },
		}
	case c.in == ingressResponses && p.Shape() == providers.ShapeMessages:
		orig := c.body
		c.ep = providers.EndpointMessages
		c.body, c.revisions, err = responses.ResponsesToMessagesRequestRevised(orig, defaultMaxTokens)
		c.tr = &translation{
			response: func(up []byte) ([]byte, catalog.Usage, error) {
				return responses.MessagesToResponsesResponseStored(up, orig, c.model, c.keep.stored())
			},
			stream: func() translate.Stream {
				return responses.NewMessagesToResponsesStreamStored(c.model, orig, c.keep.stored())
			},
		}
	case c.in == ingressCountTokens:
		// No native counter: answer with an estimate, locally.
		c.ep = ""
		return nil
	default:
		return apierr.InvalidRequest("provider " + p.Name() + " (" + p.Type() + ") does not serve " + c.in.name).
			WithParam("model").WithCode("unsupported_endpoint")
	}
	if err != nil {
		return translationError(err)
	}
	c.tr.log = s.Logger
	return nil
}

// chatTarget says what a translated Chat Completions request must fit on
// p, as its provider type's row says: the field that caps output tokens,
// and whether stream_options is accepted.
func chatTarget(p providers.Provider) translate.ChatTarget {
	return translate.ChatTarget{
		LegacyMaxTokens: providers.MaxTokensFieldOf(p.Type()) != "max_completion_tokens",
		NoStreamOptions: !p.StreamUsageOption(),
	}
}

// translationError turns a translation failure into a 400 naming the
// offending field, with the failure's own code (invalid_json,
// missing_required_parameter) or, for a feature the target cannot
// express, unsupported_feature.
func translationError(err error) error {
	if te, ok := err.(*translate.Error); ok {
		code := te.Code
		if code == "" {
			code = "unsupported_feature"
		}
		e := apierr.InvalidRequest(te.Message).WithCode(code)
		if te.Param != "" {
			e.WithParam(te.Param)
		}
		return e
	}
	return apierr.InvalidRequest("request could not be translated for this provider: " + err.Error())
}

// writeLocal answers calls that need no upstream: the token estimate for
// /v1/messages/count_tokens on providers without a native counter.
func writeLocal(w http.ResponseWriter, c *call) {
	n, err := anthropic.EstimateMessagesInputTokens(c.body)
	if err != nil {
		apierr.WriteAnthropic(w, translationError(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Modelgate-Token-Count", "estimate")
	body := strconv.AppendInt([]byte(`{"input_tokens":`), n, 10)
	_, _ = w.Write(append(body, '}'))
}
