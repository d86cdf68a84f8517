package config

import "github.com/modelgate/modelgate/internal/domain/budgets"

// Budgets holds budget settings and seeded budgets.
type Budgets struct {
	// Enabled turns budget management on or off (default on).
	// Env BUDGETS_ENABLED.
	Enabled *bool `yaml:"enabled,omitempty" json:"enabled,omitempty"`
	// UserPaths seeds read-only budgets, each entry on one user path:
	// compact amounts ({user_path: /team, daily: 10, monthly: 200}) and/or
	// one period (a name or seconds) or period_seconds with amount, plus
	// per_child for a template. Unknown keys are errors naming the line;
	// budgets.FromConfig checks the values. SET_BUDGET_<PATH> variables
	// (budgets.FromEnv) take precedence for the same budget.
	UserPaths []budgets.ConfigEntry `yaml:"user_paths,omitempty" json:"user_paths,omitempty"`
}
