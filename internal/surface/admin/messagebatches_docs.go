package admin

import "github.com/modelgate/modelgate/internal/domain/batches"

// messageBatchSchemas are the named schemas of the message batches routes,
// in Anthropic's shapes.
func messageBatchSchemas() schema {
	optionalTime := func(desc string) schema { return nullable(dateTime(desc + " Null until then.")) }
	count := func(desc string) schema { return integer(desc) }
	return schema{
		"MessageBatchRequest": object("An Anthropic message batch; members not listed are ignored.", schema{
			"requests": array(object("One Messages call of the batch.", schema{
				"custom_id": schema{"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$",
					"description": "The caller's id for the request, unique in the batch."},
				"params": schema{"type": "object", "description": "The body of a POST /v1/messages call (model required; stream not allowed)."},
			}, "custom_id", "params"), "The batch's requests, at least one."),
		}, "requests"),
		"MessageBatch": object("A message batch and its progress.", schema{
			"id":   str("The gateway's batch id (msgbatch_...)."),
			"type": schema{"type": "string", "const": "message_batch"},
			"processing_status": schema{"type": "string", "enum": []string{batches.ProcessingInProgress,
				batches.ProcessingCanceling, batches.ProcessingEnded}},
			"request_counts": object("The batch's requests by state; they add up to its number of requests.", schema{
				"processing": count("Not finished yet."), "succeeded": count("Answered."), "errored": count("Failed."),
				"canceled": count("Dropped by a cancel before they ran."), "expired": count("Not run before the batch expired."),
			}, "processing", "succeeded", "errored", "canceled", "expired"),
			"created_at":          dateTime("When the batch was submitted."),
			"expires_at":          dateTime("24 hours after its submission."),
			"ended_at":            optionalTime("When processing ended."),
			"cancel_initiated_at": optionalTime("When a cancel was asked."),
			"archived_at":         nullable(dateTime("Always null: the gateway keeps results until the batch is deleted.")),
			"results_url":         nullable(str("Where the results are read once the batch has ended; null before.")),
		}, "id", "type", "processing_status", "request_counts", "created_at", "expires_at", "ended_at",
			"cancel_initiated_at", "archived_at", "results_url"),
		"MessageBatchList": object("A page of the caller's message batches, newest first.", schema{
			"data": array(ref("MessageBatch"), ""), "has_more": boolean("More batches follow in the page's direction."),
			"first_id": nullable(str("Pass as before_id for the newer page.")),
			"last_id":  nullable(str("Pass as after_id for the older page.")),
		}, "data", "has_more", "first_id", "last_id"),
		"MessageBatchDeleted": object("A deleted message batch.", schema{
			"id": str(""), "type": schema{"type": "string", "const": "message_batch_deleted"},
		}, "id", "type"),
	}
}
