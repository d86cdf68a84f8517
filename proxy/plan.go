package proxy

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/modelgate/modelgate/apierr"
	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/providers/translate"
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
)

// defaultMaxTokens is sent to Anthropic, which requires max_tokens, when a
// chat client set none.
const defaultMaxTokens = 4096

// plan decides how c reaches its provider: natively (the body passes
// through), through translation onto the provider's shape, or answered
// locally (a token estimate). It fills c.ep, c.body and c.tr.
func (s *Service) plan(c *call) error {
	p := c.provider
	if p.Supports(c.in.native) {
		c.ep = c.in.native
		return nil
	}
	var err error
	switch {
	case c.in == ingressChat && p.Shape() == providers.ShapeMessages:
		c.ep = providers.EndpointMessages
		c.body, err = translate.ChatToMessagesRequest(c.body, defaultMaxTokens)
		c.tr = &translation{
			response: func(up []byte) ([]byte, translate.Usage, error) {
				return translate.MessagesToChatResponse(up, c.model)
			},
			stream: func() streamConverter { return translate.NewMessagesToChatStream(c.model, c.wantUsage) },
		}
	case c.in == ingressMessages && p.Shape() == providers.ShapeChat:
		c.ep = providers.EndpointChat
		c.body, err = translate.MessagesToChatRequest(c.body)
		c.tr = &translation{
			response: func(up []byte) ([]byte, translate.Usage, error) {
				return translate.ChatToMessagesResponse(up, c.model)
			},
			stream: func() streamConverter { return translate.NewChatToMessagesStream(c.model) },
		}
	case c.in == ingressResponses && p.Shape() == providers.ShapeChat:
		orig := c.body
		c.ep = providers.EndpointChat
		c.body, err = translate.ResponsesToChatRequest(orig)
		c.tr = &translation{
			response: func(up []byte) ([]byte, translate.Usage, error) {
				return translate.ChatToResponsesResponse(up, orig)
			},
			stream: func() streamConverter { return translate.NewChatToResponsesStream(orig) },
		}
	case c.in == ingressResponses && p.Shape() == providers.ShapeMessages:
		orig := c.body
		c.ep = providers.EndpointMessages
		var chat []byte
		if chat, err = translate.ResponsesToChatRequest(orig); err == nil {
			c.body, err = translate.ChatToMessagesRequest(chat, defaultMaxTokens)
			err = asResponsesError(err, gjson.GetBytes(orig, "instructions").Exists())
		}
		c.tr = &translation{
			response: func(up []byte) ([]byte, translate.Usage, error) {
				chat, _, err := translate.MessagesToChatResponse(up, c.model)
				if err != nil {
					return nil, translate.Usage{}, err
				}
				return translate.ChatToResponsesResponse(chat, orig)
			},
			stream: func() streamConverter {
				return &chainConverter{
					first:  translate.NewMessagesToChatStream(c.model, true),
					second: translate.NewChatToResponsesStream(orig),
				}
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
	if c.ep == providers.EndpointChat {
		c.body, err = fitChatBody(p, c.body)
	}
	return err
}

// fitChatBody adjusts a translated chat request to what OpenAI-compatible
// upstreams other than OpenAI accept: max_tokens rather than
// max_completion_tokens, and no stream_options where they are refused.
func fitChatBody(p providers.Provider, body []byte) ([]byte, error) {
	var err error
	if t := p.Type(); t != "openai" && t != "azure" {
		if v := gjson.GetBytes(body, "max_completion_tokens"); v.Exists() {
			if body, err = sjson.SetRawBytes(body, "max_tokens", []byte(v.Raw)); err == nil {
				body, err = sjson.DeleteBytes(body, "max_completion_tokens")
			}
		}
	}
	if err == nil && !p.StreamUsageOption() {
		body, err = sjson.DeleteBytes(body, "stream_options")
	}
	return body, err
}

// asResponsesError renames the parameter of a refusal from the second
// translation step (Chat Completions → Messages) to the Responses field the
// client actually sent.
func asResponsesError(err error, hasInstructions bool) error {
	te, ok := err.(*translate.Error)
	if !ok || te.Param == "" {
		return err
	}
	return &translate.Error{Message: te.Message, Param: responsesParam(te.Param, hasInstructions)}
}

// responsesParam maps a Chat Completions parameter path onto the
// Responses request it was translated from.
func responsesParam(param string, hasInstructions bool) string {
	head, rest := param, ""
	if i := strings.IndexAny(param, ".["); i >= 0 {
		head, rest = param[:i], param[i:]
	}
	switch head {
	case "max_completion_tokens", "max_tokens":
		return "max_output_tokens"
	case "reasoning_effort":
		return "reasoning.effort"
	case "response_format":
		return "text.format"
	case "tool_choice":
		return "tool_choice"
	case "tools":
		// tools[N].function.name → tools[N].name: Responses tools are flat.
		return "tools" + strings.Replace(rest, ".function", "", 1)
	case "messages":
		var n int
		if _, err := fmt.Sscanf(rest, "[%d]", &n); err != nil {
			return "input"
		}
		if hasInstructions {
			if n == 0 {
				return "instructions"
			}
			n--
		}
		out := "input[" + strconv.Itoa(n) + "]"
		if i := strings.Index(rest, ".content["); i >= 0 {
			if j := strings.IndexByte(rest[i:], ']'); j >= 0 {
				out += rest[i : i+j+1]
			}
		}
		return out
	}
	return param
}

// translationError turns a translation failure into a 400 naming the
// feature the target cannot express.
func translationError(err error) error {
	if te, ok := err.(*translate.Error); ok {
		e := apierr.InvalidRequest(te.Message).WithCode("unsupported_feature")
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
	n, err := translate.EstimateMessagesInputTokens(c.body)
	if err != nil {
		apierr.WriteAnthropic(w, translationError(err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Modelgate-Token-Count", "estimate")
	body := strconv.AppendInt([]byte(`{"input_tokens":`), n, 10)
	_, _ = w.Write(append(body, '}'))
}
