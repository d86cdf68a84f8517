// Package responses serves the OpenAI Responses API (POST /v1/responses)
// for upstreams that do not speak it: ResponsesToChatRequest,
// ChatToResponsesResponse and ChatToResponsesStream translate to and from
// Chat Completions; ResponsesToMessagesRequest, MessagesToResponsesResponse
// and NewMessagesToResponsesStream go on to Anthropic Messages through
// package anthropic. The gateway keeps no response state, so stateful
// parameters are refused; UNSUPPORTED.md lists what is refused and what is
// accepted without effect, and why.
package responses
