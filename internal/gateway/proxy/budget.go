package proxy

import (
	"net/http"

	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// DecidesBudget reports whether the service itself refuses an over-budget
// request of routes of shape, once it has resolved the request's model:
// the model endpoints it forwards (chat, responses, messages,
// embeddings, speech, transcription), passthrough, whose model is read
// from a JSON body when it has one, and realtime sessions. For these the
// stage in front of it records the verdict (reqinfo.Info.BudgetExceeded)
// and refuses a request whose plan's first target is priced; every
// other call is refused here by the same rule (reqinfo.Info.BudgetRefusal).
// Every other budgeted route is refused there.
func DecidesBudget(shape routes.Shape) bool {
	switch shape {
	case routes.ShapeChat, routes.ShapeResponses, routes.ShapeMessages, routes.ShapeEmbeddings,
		routes.ShapeSpeech, routes.ShapeTranscription, routes.ShapePassthrough, routes.ShapeRealtime:
		return true
	}
	return false
}

// refuseOverBudget answers c with the spent budget's 429 recorded on its
// request and reports true, unless no budget is spent or c's resolved
// model has no price (such a request is never spend, so it is admitted).
// Nothing upstream is called for a refused request, and it is marked so
// that the user-path rate limits give it back.
func refuseOverBudget(w http.ResponseWriter, r *http.Request, c *call) bool {
	e := overBudget(c)
	if e == nil {
		return false
	}
	c.info.RefusedBeforeUpstream = true
	apierr.WriteFor(w, r, e)
	return true
}

// overBudget is the spent budget's 429 when c would be spend (its model
// as its provider serves it has a price), else nil (reqinfo's one rule,
// Info.BudgetRefusal). Each upstream call is checked, failover targets
// included: an unpriced model that fails over to a priced one is refused
// there as a priced request is.
func overBudget(c *call) error {
	if c.info.BudgetExceeded == nil {
		return nil
	}
	return c.info.BudgetRefusal(reqinfo.PricedOn(c.provider.Name(), c.provider.Type(), c.model))
}
