package admin

// vmodelSchemas are the named schemas of the virtual-model, failover and
// model-inventory routes.
func vmodelSchemas() schema {
	target := object("", schema{"provider": str("Provider instance name."), "model": str("Model id on that provider."),
		"weight": number("Share under round_robin, up to 1000000; absent means 1.")}, "provider", "model")
	fields := schema{
		"source":           str("The model name callers use, or, without targets, the selector a policy applies to: provider/model, provider/*, model or *."),
		"model":            str(""),
		"provider_name":    str(""),
		"description":      str(""),
		"enabled":          boolean("false disables what the row selects (403 model_access_denied); absent means true."),
		"strategy":         schema{"type": "string", "enum": []string{"round_robin", "cost"}},
		"targets":          array(ref("VirtualModelTarget"), "Where source is sent; a target provider/model that is itself a source chains (at most 8 deep, no cycles)."),
		"user_paths":       array(str(""), "Only callers at or under these user paths may use the row; empty means everyone."),
		"session_affinity": boolean("Keep a detected session on the target that served it; absent means true."),
		"slowdown":         number("0, or 0.1 to 10: the answer is delayed by this factor of the upstream's time."),
	}
	row := schema{}
	for k, v := range fields {
		row[k] = v
	}
	row["managed"] = boolean("From configuration: read-only here, never stored.")
	row["created_at"] = dateTime("When the row was first stored; on a managed row, which is never stored, when the configuration declaring it was loaded.")
	row["updated_at"] = dateTime("When the row was last stored; on a managed row, when the configuration declaring it was loaded.")
	row["warnings"] = array(str(""), "In the answer to PUT only, when there are any: the targets that could not be checked "+
		"because their provider has not listed its models yet. A target naming a model its provider's known listing lacks is refused (400).")
	write := schema{}
	for k, v := range fields {
		write[k] = v
	}
	write["old_source"] = str("The source of the row being renamed.")
	access := object("", schema{
		"selector": str("provider_name/model"), "default_enabled": boolean(""), "effective_enabled": boolean(""),
		"user_paths": array(str(""), ""),
		"override": schema{"anyOf": []schema{ref("VirtualModel"), {"type": "null"}},
			"description": "The virtual model row that decides, as GET /admin/virtual-models shows it; null when none does."},
	}, "selector", "default_enabled", "effective_enabled", "user_paths", "override")
	route := object("", schema{"primary_model": str(""), "targets": array(str(""), "Tried in order."), "managed": boolean("")},
		"primary_model", "targets", "managed")
	return schema{
		"VirtualModelTarget": target,
		"VirtualModel":       object("A virtual model or access policy.", row, "source", "managed"),
		"VirtualModelWrite":  closed(object("", write, "source")),
		"VirtualModelList":   object("", schema{"virtual_models": array(ref("VirtualModel"), "")}, "virtual_models"),
		"FailoverRoute":      route,
		"FailoverWrite":      closed(object("", schema{"primary_model": str(""), "targets": array(str(""), "")}, "primary_model", "targets")),
		"FailoverList":       object("", schema{"routes": array(ref("FailoverRoute"), "")}, "routes"),
		"ModelAccess":        access,
		"ModelInventory": array(object("", schema{
			"provider_name": str(""), "provider_type": str(""), "selector": str("provider_name/model"),
			"model": ref("Model"), "access": ref("ModelAccess"),
		}, "provider_name", "provider_type", "selector", "model", "access"), "At most 10000 rows."),
	}
}
