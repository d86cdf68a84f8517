// Package responses keeps the answers of POST /v1/responses that the
// client asked to be stored (store, true unless set to false), so that
// GET /v1/responses/{id}, GET /v1/responses/{id}/input_items and
// DELETE /v1/responses/{id} find them and previous_response_id can
// continue them on a provider that keeps no state of its own.
//
// A response served by a provider that speaks the Responses API itself
// (an openai instance) is kept by that provider: the gateway records only
// which provider and user path it belongs to. A response the gateway
// translated onto another API shape is kept whole here: its final
// response object and its input items. Either way a record is visible
// only to its own user path, and is forgotten after the retention.
//
// Writes leave the request path: Keep queues the record, and one writer
// commits what is queued in batches; reads see the queued records at
// once. The package imports no storage engine and no Caddy; Storage is
// what it needs from one.
package responses
