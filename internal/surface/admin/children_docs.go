package admin

// childrenSchemas are the named schemas of the children lists of per_child
// templates (budgets and rate limits).
func childrenSchemas() schema {
	next := nullable(str("Cursor of the next page (pass it as after); null on the last one."))
	return schema{
		"BudgetChild": object("A child of a per_child budget template in the template's current period.", schema{
			"user_path":    str("The child's path, a direct child of the template's."),
			"spent":        number("The child's spend (USD) since the later of the period start, the template's last reset and the child's own."),
			"amount":       number("The template's cap, which each child has on its own."),
			"remaining":    number("amount - spent, at least 0."),
			"exhausted":    boolean("spent has reached amount: the child's requests are refused until period_end or a reset of the child."),
			"in_flight":    number("The reservations (USD) the child's requests in flight hold; absent when the shared spend store cannot tell."),
			"period_start": dateTime(""), "period_end": dateTime(""),
		}, "user_path", "spent", "amount", "remaining", "exhausted", "period_start", "period_end"),
		"BudgetChildren": object("One page of a template's children with spend (or a reservation held), most spent first, then by path.", schema{
			"children": array(ref("BudgetChild"), ""), "next": next, "server_time": dateTime(""),
		}, "children", "next", "server_time"),
		"RateLimitChild": object("A child of a per_child rate-limit template.", schema{
			"user_path":     str("The child's path, a direct child of the template's."),
			"requests_used": integer("The child's sliding-window request estimate (0 under a concurrent template)."),
			"tokens_used":   integer("The child's sliding-window token estimate."),
			"in_flight":     integer("The child's admitted requests still running."),
			"max_requests":  integer("The template's request cap per window (in-flight cap of a concurrent template), which each child has on its own; 0: none."),
			"max_tokens":    integer("The template's token cap per window; 0: none."),
			"exhausted":     boolean("The child's next request would be refused by this template."),
		}, "user_path", "requests_used", "tokens_used", "in_flight", "max_requests", "max_tokens", "exhausted"),
		"RateLimitChildren": object("One page of a template's children with usage, most used first (requests, then tokens, then in flight), then by path.", schema{
			"children": array(ref("RateLimitChild"), ""), "next": next, "server_time": dateTime(""),
		}, "children", "next", "server_time"),
	}
}
