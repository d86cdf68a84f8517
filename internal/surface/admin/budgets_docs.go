package admin

import (
	"fmt"

	"github.com/modelgate/modelgate/internal/domain/budgets"
)

// budgetSchemas are the named schemas of the budget routes.
func budgetSchemas() schema {
	periods := []string{"hourly", "daily", "weekly", "monthly"}
	entry := object("A budget in its current period. A per_child template row has no aggregate spend (spent 0); "+
		"GET /v1/usage shows the caller's child instead.", schema{
		"user_path": str("The budget's user path; it covers this path and every path below it."),
		"scope":     str("Always user_path."), "subject": str("The budget's user path."),
		"effective_subject": str("The path whose spend is shown: the caller's child of a template, else user_path."),
		"period":            schema{"type": "string", "enum": periods, "description": "Absent for a custom period."},
		"period_seconds":    integer("The period's nominal length (monthly: 2592000); a custom period's length."),
		"amount":            number("The cap in USD per period."), "spent": number("Spend since the later of period_start and last_reset_at."),
		"remaining": number("amount - spent, at least 0."), "usage_ratio": number("spent / amount."),
		"has_usage": boolean(""), "period_start": dateTime(""), "period_end": dateTime("A refused request may retry then."),
		"period_label": str("2026-11-23T14, 2026-11-23, 2026-W48, 2026-11, or the start for a custom period."),
		"period_ratio": number("Elapsed fraction of the period."), "per_child": boolean("A template: each direct child has its own amount and spend."),
		"source":     schema{"type": "string", "enum": []string{budgets.SourceManual, budgets.SourceConfig}, "description": "config budgets are read-only here."},
		"created_at": dateTime(""), "updated_at": dateTime(""), "last_reset_at": str("RFC 3339, or empty when never reset."),
		"children": integer("A template's row in the admin list: how many children have spend in the current period " +
			"(GET /admin/budgets/{user_path}/{period}/children lists them). Absent on other rows."),
		"children_exhausted": integer("A template's row in the admin list: how many of those children have spent the amount. Absent on other rows."),
	}, "user_path", "scope", "subject", "effective_subject", "period_seconds", "amount", "spent", "remaining", "usage_ratio",
		"has_usage", "period_start", "period_end", "period_label", "period_ratio", "per_child", "source", "created_at", "updated_at", "last_reset_at")
	settings := schema{
		"daily_reset_hour":     integer("Hour (0-23, UTC) at which daily, weekly and monthly periods start."),
		"weekly_reset_weekday": integer("Weekday (0 = Sunday) on which weekly periods start."),
		"monthly_reset_day":    integer("Day of the month (1-31, clamped to the month's last day) on which monthly periods start."),
	}
	return schema{
		"BudgetEntry": entry,
		"BudgetList":  object("", schema{"budgets": array(ref("BudgetEntry"), ""), "server_time": dateTime("")}, "budgets", "server_time"),
		"BudgetWrite": closed(object("A manual budget's amount and template flag.", schema{
			"amount":    number("USD per period: finite, at least 0 (0 refuses every request)."),
			"per_child": boolean("Make it a template. Needs the quota_templates entitlement."),
		}, "amount")),
		"BudgetKey": closed(object("Names one budget: user_path and period, or period_seconds for a custom period.", schema{
			"user_path":      str(""),
			"period":         str("hourly, daily, weekly, monthly or a whole number of seconds."),
			"period_seconds": integer(fmt.Sprintf("A custom period in seconds (1 to %d).", budgets.MaxCustomSeconds)),
		}, "user_path")),
		"BudgetReset":         closed(object("", schema{"confirmation": schema{"type": "string", "const": "reset"}}, "confirmation")),
		"BudgetSettings":      object("", settings, "daily_reset_hour", "weekly_reset_weekday", "monthly_reset_day"),
		"BudgetSettingsWrite": closed(object("Fields left out keep their value.", settings)),
	}
}
