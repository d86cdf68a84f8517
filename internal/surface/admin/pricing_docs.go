package admin

// pricingSchemas are the named schemas of the price-override and
// recalculation routes.
func pricingSchemas() schema {
	key := schema{"provider": str("A provider instance's name, or a provider type; a row for the name wins over one for its type."),
		"model": str("The model id as sent upstream (exact).")}
	row := schema{"pricing": ref("Pricing"),
		"source":     schema{"type": "string", "enum": []string{"config", "admin"}, "description": "config rows are read-only here."},
		"created_at": dateTime(""), "updated_at": dateTime("")}
	for k, v := range key {
		row[k] = v
	}
	write := schema{"pricing": ref("Pricing")}
	for k, v := range key {
		write[k] = v
	}
	req := schema{
		"start_date": str("First day, YYYY-MM-DD (UTC)."), "end_date": str("Last day, included, YYYY-MM-DD (UTC); at most 366 days after start_date."),
		"provider": str("Only records of this provider name or type."), "model": str("Only records of this model."),
		"user_path": str("Only records of this user path and the paths below it."),
	}
	return schema{
		"PricingOverride":     object("An operator's price for one model on one provider.", row, "provider", "model", "pricing", "source", "created_at", "updated_at"),
		"PricingOverrideList": object("", schema{"overrides": array(ref("PricingOverride"), "")}, "overrides"),
		"PricingWrite":        closed(object("", write, "provider", "model", "pricing")),
		"PricingKey":          closed(object("", key, "provider", "model")),
		"RecalcRequest":       closed(object("", req, "start_date", "end_date")),
		"RecalcJob": object("A usage recalculation: progress, and once done its result. Costs are USD summed over the changed records.", schema{
			"id":              str("Read its status at GET /admin/usage/recalculate/{id} on the same gateway process."),
			"status":          schema{"type": "string", "enum": []string{"running", "done", "failed"}},
			"request":         ref("RecalcRequest"),
			"records_scanned": integer("Records of the window read so far."),
			"records_changed": integer("Records whose cost changed."),
			"cost_before":     number(""), "cost_after": number(""), "delta": number("cost_after − cost_before."),
			"error":      str("Why a failed job stopped."),
			"started_at": dateTime(""), "finished_at": nullable(dateTime("")),
		}, "id", "status", "request", "records_scanned", "records_changed", "cost_before", "cost_after", "delta", "started_at", "finished_at"),
	}
}
