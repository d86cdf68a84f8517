package admin

import "github.com/modelgate/modelgate/internal/request/apierr"

// anthropicSchemas are the named schemas of the Anthropic error envelope,
// in which the /v1/messages routes answer errors (apierr.AnthropicEnvelope).
func anthropicSchemas() schema {
	return schema{
		"AnthropicErrorResponse": object("The Anthropic error envelope.", schema{
			"type": schema{"type": "string", "const": "error"},
			"error": object("", schema{
				"type":    schema{"type": "string", "enum": apierr.AnthropicTypes},
				"message": str(""),
			}, "type", "message"),
		}, "type", "error"),
	}
}
