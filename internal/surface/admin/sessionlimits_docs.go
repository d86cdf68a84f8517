package admin

import "github.com/modelgate/modelgate/internal/domain/sessions"

// sessionLimitSchemas are the named schemas of /admin/session-limits.
func sessionLimitSchemas() schema {
	fields := schema{
		"user_path":    str("The limits cover this path and every path below it (per_child: only the paths below it)."),
		"max_requests": integer("Most requests one session may make; 0 or absent: no limit."),
		"max_cost":     number("Most one session may spend, in USD; 0 or absent: no limit."),
		"max_repeats":  integer("Identical answers in a row (same tool call and arguments, or same error) that end a session; 0: no limit, else at least 2."),
		"per_child":    boolean("A template: each direct child of user_path counts its sessions apart."),
	}
	limit := schema{"source": schema{"type": "string", "enum": []string{sessions.SourceConfig, sessions.SourceManual}}}
	for k, v := range fields {
		limit[k] = v
	}
	return schema{
		"SessionLimit":      object("The session limits of one user path.", limit, "user_path", "source"),
		"SessionLimitList":  object("", schema{"limits": array(ref("SessionLimit"), ""), "server_time": dateTime("")}, "limits", "server_time"),
		"SessionLimitWrite": closed(object("Replaces the manual limit of user_path; set at least one max_*.", fields, "user_path")),
		"SessionLimitKey":   closed(object("", schema{"user_path": str("")}, "user_path")),
	}
}

// withLimitedSchema adds to the UsageSession schema the field
// GET /admin/usage/sessions adds to each row (UsageSessionRow).
func withLimitedSchema(session schema) {
	if props, ok := session["properties"].(schema); ok {
		props["limited"] = str("The session limit that refused this session (max_repeats=3), as this gateway process remembers it; absent while none did.")
	}
}
