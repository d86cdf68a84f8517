package admin

// storedResponseSchemas are the named schemas of the stored-response
// routes, in OpenAI's shapes.
func storedResponseSchemas() schema {
	return schema{
		"StoredResponse": schema{"type": "object", "additionalProperties": true,
			"description": "A stored response object, as POST /v1/responses answered it (a stream's as its final event carried it)."},
		"ResponseInputItemList": object("A page of a stored response's input items.", schema{
			"object": schema{"type": "string", "const": "list"},
			"data": array(schema{"type": "object", "additionalProperties": true,
				"description": "An input item (message, function_call, function_call_output, ...) with its id."}, ""),
			"first_id": nullable(str("")), "last_id": nullable(str("Pass as after for the next page.")), "has_more": boolean(""),
		}, "object", "data", "first_id", "last_id", "has_more"),
		"StoredResponseDeleted": object("A deleted stored response.", schema{
			"id": str(""), "object": schema{"type": "string", "const": "response.deleted"},
			"deleted": schema{"type": "boolean", "const": true},
		}, "id", "object", "deleted"),
	}
}
