package admin

// cacheSchemas are the named schemas of the response-cache routes.
func cacheSchemas() schema {
	return schema{
		"CacheStatus": object("The response cache. When it is off, enabled is false and the counts are 0.", schema{
			"enabled":         boolean("Whether the response cache is on (cache.enabled, RESPONSE_CACHE_ENABLED)."),
			"scope":           schema{"type": "string", "enum": []string{"user_path", "global"}, "description": "Who shares an entry."},
			"entries":         integer("Live entries."),
			"bytes":           integer("Their stored size."),
			"max_bytes":       integer("The size cap; the least recently used entries go first."),
			"max_entry_bytes": integer("The cap of one answer's body; a longer answer passes through uncached."),
			"ttl_seconds":     integer("How long an entry is served."),
			"hits":            integer("Requests answered from the cache since start."),
			"misses":          integer("Lookups that found nothing since start."),
			"hit_ratio":       number("hits / (hits + misses); 0 before any lookup."),
		}, "enabled", "scope", "entries", "bytes", "max_bytes", "max_entry_bytes", "ttl_seconds", "hits", "misses", "hit_ratio"),
		"CachePurgeRequest": closed(object("A model and/or user_path selects the entries to delete; without either, "+
			`{"confirmation":"purge"} deletes every entry.`, schema{
			"confirmation": schema{"type": "string", "const": "purge"},
			"model":        str("The upstream model id, or provider_name/model."),
			"user_path":    str("The user path the entries were stored for."),
		})),
		"CachePurge": object("", schema{"purged": integer("Entries deleted.")}, "purged"),
	}
}
