// Package translate holds what the gateway's API-shape translators share:
// Writer, the compact JSON writer every translator writes with;
// EventWriter, the one server-sent-event framing of every stream
// converter (events are read and framed with package sse); Path and
// Error, the JSON path and the refusal a translator reports for a request
// field the target cannot take; the Stream interface and Chain, which runs
// two converters in a row without reading events back from text; the
// parsers and writers of the three usage objects (ChatUsage,
// MessagesUsage, ResponsesUsage), all in catalog.Usage; and ChatTarget,
// the quirks of the Chat Completions upstream a request is translated
// for.
//
// The translators live in one package per pair of shapes:
// translate/anthropic (Chat Completions ↔ Anthropic Messages) and
// translate/responses (OpenAI Responses → Chat Completions, and on to
// Messages through both).
package translate
