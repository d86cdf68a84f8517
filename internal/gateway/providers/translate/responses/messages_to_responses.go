package responses

import (
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate/anthropic"
)

// MessagesToResponsesResponse translates a non-streamed Anthropic Messages
// response into a Responses response object for the client's Responses
// request req, through Chat Completions (anthropic.MessagesToChatResponse
// reporting model, then ChatToResponsesResponse). An error means the
// upstream body is not a message.
func MessagesToResponsesResponse(messages, req []byte, model string) ([]byte, catalog.Usage, error) {
	chat, _, err := anthropic.MessagesToChatResponse(messages, model)
	if err != nil {
		return nil, catalog.Usage{}, err
	}
	return ChatToResponsesResponse(chat, req)
}

// MessagesToResponsesResponseStored is MessagesToResponsesResponse for a
// response the gateway keeps as st says (nil: none).
func MessagesToResponsesResponseStored(messages, req []byte, model string, st *Stored) ([]byte, catalog.Usage, error) {
	chat, _, err := anthropic.MessagesToChatResponse(messages, model)
	if err != nil {
		return nil, catalog.Usage{}, err
	}
	return ChatToResponsesResponseStored(chat, req, st)
}

// NewMessagesToResponsesStream converts an Anthropic Messages event stream
// into Responses events for the client's Responses request req: an
// anthropic.MessagesToChatStream reporting model, asked for the usage chunk,
// chained (translate.Chain) into a ChatToResponsesStream.
func NewMessagesToResponsesStream(model string, req []byte) translate.Stream {
	return NewMessagesToResponsesStreamStored(model, req, nil)
}

// NewMessagesToResponsesStreamStored is NewMessagesToResponsesStream for a
// response the gateway keeps as st says (nil: none).
func NewMessagesToResponsesStreamStored(model string, req []byte, st *Stored) translate.Stream {
	return translate.Chain(anthropic.NewMessagesToChatStream(model, true), NewChatToResponsesStreamStored(req, st))
}
