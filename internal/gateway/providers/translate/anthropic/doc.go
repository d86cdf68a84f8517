// Package anthropic translates between OpenAI Chat Completions and
// Anthropic Messages: request bodies, response bodies and event streams.
// The functions are pure: bytes in, bytes out, no I/O. A request feature
// the target shape cannot express is reported as a *translate.Error, which
// the gateway answers with 400 invalid_request_error; UNSUPPORTED.md lists
// every such feature.
//
//   - requests: ChatToMessagesRequest, MessagesToChatRequest;
//   - non-streamed responses: MessagesToChatResponse,
//     ChatToMessagesResponse;
//   - streams: MessagesToChatStream, ChatToMessagesStream, fed one
//     upstream Event at a time;
//   - errors: ErrorToGateway;
//   - count_tokens for non-Anthropic models: EstimateMessagesInputTokens.
//
// Decisions that shape the Anthropic translation:
//
//   - JSON mode. response_format json_object adds a system instruction;
//     json_schema declares a tool named modelgate_json_response whose
//     input_schema is the schema and makes the model call it (tool_choice
//     "tool", or "any" when the client has tools of its own); the response
//     and stream converters turn that call back into message content. With
//     reasoning_effort set Anthropic cannot force a tool, so the tool is
//     offered with tool_choice "auto" and a system instruction.
//   - Reasoning. reasoning_effort becomes thinking {type: enabled,
//     budget_tokens} with minimal 1024, low 2048, medium 8192, high 16384,
//     xhigh 32768 tokens; "none" becomes thinking {type: disabled}.
//     Thinking output becomes reasoning_content, and the signed blocks are
//     returned as message.thinking_blocks so that a client can send them
//     back on an assistant message, as Anthropic requires for tool use
//     with thinking. In the other direction a thinking budget becomes
//     reasoning_effort low (< 4096), medium (< 16384) or high.
//   - Limits. Anthropic requires max_tokens: max_completion_tokens, else
//     max_tokens, else the caller's default. Toward OpenAI-compatible
//     upstreams max_tokens is sent as max_completion_tokens.
//   - Usage. Gateway input tokens count every prompt token: Anthropic's
//     input_tokens + cache_read_input_tokens + cache_creation_input_tokens
//     is OpenAI's prompt_tokens; cache reads are
//     prompt_tokens_details.cached_tokens, cache writes
//     prompt_tokens_details.cache_write_tokens.
//   - Identity. id and the upstream's model name are kept unless the
//     caller names the model; created, which Anthropic does not send, is
//     the conversion time. Tool call ids are made to fit Anthropic's
//     ^[a-zA-Z0-9_-]+$ by replacing other bytes with '_'.
package anthropic
