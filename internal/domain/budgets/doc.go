// Package budgets caps spend, in the catalog's currency (USD), per user path
// and period.
//
// A Budget is identified by a user path and a Period (hourly, daily, weekly,
// monthly or a whole number of seconds). A budget on /team covers /team and
// every path below it (/team/app), not /team-alpha; a budget on / covers
// all traffic. A per_child budget is a template: every direct child of its
// path gets its own amount and spend, and the template path itself is not
// charged.
//
// Spend is the total cost of the usage records in the current period since
// the later of the period start and the budget's last reset. The Tracker
// keeps it in memory: Charge adds the cost of a response the moment it
// completes and Check refuses a request while any covering budget has
// spent its amount. On start the Tracker is rebuilt from a SpendSource (the
// persisted usage), so a restart loses nothing.
//
// Reserve admits a priced request by its worst-case cost: it refuses when
// spend + the reservations held + that cost would pass an amount, and
// otherwise holds the cost until Reservation.Settle replaces it with the
// real cost (or releases it). Requests admitted together thus never pass
// an amount when they cost what they reserved.
//
// Several gateway processes share spend through a SpendStore
// (Tracker.ShareSpend, Options.Spend): Charge adds to it, Check reads the
// covering budgets' spend from it in one call, a reset clears it, and on
// start the store's figures win over the usage records, which only seed
// the windows the store does not hold. While the store is unreachable the
// Tracker counts in memory, and hands what it owes over when the store
// answers again.
//
// Periods roll over at the Settings anchors (UTC): daily at
// daily_reset_hour, weekly on weekly_reset_weekday, monthly on
// monthly_reset_day, clamped to the month's last day. Custom periods are
// epoch-aligned windows of their length.
//
// The Service adds the admin operations (list, put, delete, reset,
// settings) over a Storage for manual budgets, settings and reset marks.
// Every Storage keeps a manual budget and a reset mark in the one stored
// form of EncodeBudget and EncodeReset.
// Budgets seeded by configuration (YAML budgets.user_paths and
// SET_BUDGET_* variables, see ConfigEntry and FromEnv) are read-only to
// the admin API and never stored.
package budgets
