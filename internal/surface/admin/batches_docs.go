package admin

import "github.com/modelgate/modelgate/internal/domain/batches"

// batchSchemas are the named schemas of the files and batches routes, in
// OpenAI's shapes.
func batchSchemas() schema {
	unix := func(desc string) schema { return integer(desc + " Unix seconds.") }
	optionalUnix := func(desc string) schema { return nullable(unix(desc + " Null until then.")) }
	return schema{
		"BatchFileUpload": object("A batch input file: JSON Lines, one request per line.", schema{
			"file":    schema{"type": "string", "contentMediaType": "application/octet-stream", "description": "The JSONL content."},
			"purpose": schema{"type": "string", "enum": []string{batches.PurposeBatch}},
		}, "file", "purpose"),
		"BatchFile": object("An uploaded file, or a batch's output or error file.", schema{
			"id": str("The gateway's file id (file-...)."), "object": schema{"type": "string", "const": "file"},
			"bytes": integer(""), "created_at": unix("When it was stored."), "filename": str(""),
			"purpose": str("batch for uploads, batch_output for results."), "status": str("Always processed."),
		}, "id", "object", "bytes", "created_at", "filename", "purpose", "status"),
		"BatchFileList": object("A page of the caller's files.", schema{
			"object": schema{"type": "string", "const": "list"}, "data": array(ref("BatchFile"), ""),
			"first_id": nullable(str("")), "last_id": nullable(str("Pass as after for the next page.")), "has_more": boolean(""),
		}, "object", "data", "first_id", "last_id", "has_more"),
		"BatchFileDeleted": object("A deleted file.", schema{
			"id": str(""), "object": schema{"type": "string", "const": "file"}, "deleted": schema{"type": "boolean", "const": true},
		}, "id", "object", "deleted"),
		"BatchRequest": object("A batch over an uploaded file; members not listed are ignored.", schema{
			"input_file_id":     str("An uploaded file of purpose batch."),
			"endpoint":          schema{"type": "string", "enum": batches.Endpoints, "description": "The path every line calls."},
			"completion_window": schema{"type": "string", "const": "24h"},
			"metadata":          nullable(mapOf(str(""), "The caller's key-value metadata.")),
		}, "input_file_id", "endpoint", "completion_window"),
		"Batch": object("A batch and its progress.", schema{
			"id": str("The gateway's batch id (batch_...)."), "object": schema{"type": "string", "const": "batch"},
			"endpoint": str(""), "input_file_id": str(""), "completion_window": str(""),
			"status": schema{"type": "string", "enum": []string{batches.StatusValidating, batches.StatusFailed, batches.StatusInProgress,
				batches.StatusFinalizing, batches.StatusCompleted, batches.StatusCancelling, batches.StatusCancelled, batches.StatusExpired}},
			"errors": nullable(object("Why the batch failed before running any line; null otherwise.", schema{
				"object": schema{"type": "string", "const": "list"},
				"data":   array(object("", schema{"code": str(""), "message": str("")}, "code", "message"), ""),
			}, "object", "data")),
			"output_file_id": nullable(str("The answered lines, once the batch is finished.")),
			"error_file_id":  nullable(str("The failed lines, once the batch is finished.")),
			"created_at":     unix(""), "in_progress_at": optionalUnix(""), "expires_at": optionalUnix(""),
			"finalizing_at": optionalUnix(""), "completed_at": optionalUnix(""), "failed_at": optionalUnix(""),
			"expired_at": optionalUnix(""), "cancelling_at": optionalUnix(""), "cancelled_at": optionalUnix(""),
			"request_counts": object("The batch's lines.", schema{"total": integer(""), "completed": integer(""), "failed": integer("")},
				"total", "completed", "failed"),
			"metadata": nullable(mapOf(str(""), "The caller's key-value metadata; null without any.")),
		}, "id", "object", "endpoint", "errors", "input_file_id", "completion_window", "status", "output_file_id", "error_file_id",
			"created_at", "in_progress_at", "expires_at", "finalizing_at", "completed_at", "failed_at", "expired_at",
			"cancelling_at", "cancelled_at", "request_counts", "metadata"),
		"BatchList": object("A page of the caller's batches, newest first.", schema{
			"object": schema{"type": "string", "const": "list"}, "data": array(ref("Batch"), ""),
			"first_id": nullable(str("")), "last_id": nullable(str("Pass as after for the next page.")), "has_more": boolean(""),
		}, "object", "data", "first_id", "last_id", "has_more"),
	}
}
