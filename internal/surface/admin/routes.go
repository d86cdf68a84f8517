package admin

import (
	"net/http"

	"github.com/modelgate/modelgate/internal/request/routes"
)

// handlerFunc answers one admin API route.
type handlerFunc func(h *Handler, w http.ResponseWriter, r *http.Request, p params)

// params holds the values of a route's {name} segments.
type params map[string]string

// handlers attaches the admin API's handlers to their routes, by route id.
// The routes themselves (method, path, credential, description) are
// declared in the route table of package routes; every served admin route
// there has a handler here and every handler here names one, which the
// tests check.
var handlers map[string]handlerFunc

// Filled in init because the openapi.json handler reads the route table,
// which the compiler cannot tell apart from reading this map.
func init() {
	handlers = map[string]handlerFunc{
		"listAuthKeys":          (*Handler).listKeys,
		"createAuthKey":         (*Handler).createKey,
		"getAuthKey":            (*Handler).getKey,
		"updateAuthKey":         (*Handler).updateKey,
		"deleteAuthKey":         (*Handler).deleteKey,
		"deactivateAuthKey":     (*Handler).deactivateKey,
		"getUsageSummary":       (*Handler).usageSummary,
		"getUsageDaily":         (*Handler).usageDaily,
		"getUsageSessions":      (*Handler).usageSessions,
		"getUsageBreakdown":     (*Handler).usageBreakdown,
		"listAuditLog":          (*Handler).auditLog,
		"getAuditLogEntry":      (*Handler).auditEntry,
		"getAuditStats":         (*Handler).auditStats,
		"getConversation":       (*Handler).auditConversation,
		"streamLiveLogs":        (*Handler).liveLogs,
		"listRateLimits":        (*Handler).listRateLimits,
		"putRateLimit":          (*Handler).putRateLimit,
		"deleteRateLimit":       (*Handler).deleteRateLimit,
		"resetOneRateLimit":     (*Handler).resetOneRateLimit,
		"resetRateLimits":       (*Handler).resetRateLimits,
		"listRateLimitChildren": (*Handler).rateLimitChildren,
		"listBudgets":           (*Handler).listBudgets,
		"putBudget":             (*Handler).putBudget,
		"deleteBudget":          (*Handler).deleteBudget,
		"resetOneBudget":        (*Handler).resetOneBudget,
		"resetBudgets":          (*Handler).resetBudgets,
		"listBudgetChildren":    (*Handler).budgetChildren,
		"getBudgetSettings":     (*Handler).getBudgetSettings,
		"putBudgetSettings":     (*Handler).putBudgetSettings,
		"getRuntimeConfig":      (*Handler).runtimeConfig,

		"listSessionLimits":  (*Handler).listSessionLimits,
		"putSessionLimit":    (*Handler).putSessionLimit,
		"deleteSessionLimit": (*Handler).deleteSessionLimit,
		"getCache":           (*Handler).getCache,
		"purgeCache":         (*Handler).purgeCache,
		"getOpenAPI":         (*Handler).openAPI,

		"listPricingOverrides":  (*Handler).listPricing,
		"putPricingOverride":    (*Handler).putPricing,
		"deletePricingOverride": (*Handler).deletePricing,
		"recalculateUsage":      (*Handler).recalculateUsage,
		"getUsageRecalculation": (*Handler).getRecalculation,

		"listAdminModels":    (*Handler).listModels,
		"listVirtualModels":  (*Handler).listVirtualModels,
		"putVirtualModel":    (*Handler).putVirtualModel,
		"deleteVirtualModel": (*Handler).deleteVirtualModel,
		"listFailover":       (*Handler).listFailover,
		"putFailover":        (*Handler).putFailover,
		"deleteFailover":     (*Handler).deleteFailover,
	}
}

// apiHandler returns the handler of an admin API route, or nil for any
// other route (a catch-all, a dashboard page, a model endpoint).
func apiHandler(rt *routes.Route) handlerFunc {
	if rt == nil || rt.Shape != routes.ShapeAdmin || !rt.Served {
		return nil
	}
	return handlers[rt.ID]
}
