// Package reqinfo carries what each stage of the handler chain learns about
// one request (caller, user path, models, provider, usage, attempts) in a
// single value stored in the request context. The audit stage reads it once
// the response is done.
package reqinfo

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/reqbody"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// AuthMethod says how the caller authenticated.
type AuthMethod string

// Authentication methods.
const (
	AuthNone       AuthMethod = "none"
	AuthMasterKey  AuthMethod = "master_key"
	AuthManagedKey AuthMethod = "managed_key"
)

// Attempt records one upstream call.
type Attempt struct {
	Provider string
	// ServerAddress is the host the call went to ("" when not known).
	ServerAddress string
	// ProviderType is the provider's type ("" when not known).
	ProviderType string
	Model        string
	StatusCode   int
	StartedAt    time.Time
	Duration     time.Duration
	// Err is why the call failed, in the gateway's words (never a Go
	// error's detail), or "".
	Err string
	// ErrType and ErrCode are the gateway error type and code of the
	// call's failure, when it has them.
	ErrType, ErrCode string
	// ResponseHeader and ResponseBody are the upstream's error answer,
	// when the call got one (the body capped and without provider
	// credentials); nil otherwise.
	ResponseHeader http.Header
	ResponseBody   []byte
	// NotCalled reports that the provider was not called at all: the
	// target was refused before (a saturated rate-limit rule, a spent
	// budget) and the request failed over or ended there.
	NotCalled bool
}

// Rule names a rate-limit rule or a budget, for the metrics of the
// requests it refused.
type Rule struct {
	// Scope is the rate-limit rule's scope (user_path, provider or
	// model); empty for a budget.
	Scope string
	// Subject is the rule's or budget's user path, provider or model.
	Subject string
	// Period is the rule's or budget's period (minute, monthly, 600s, ...).
	Period string
}

// Info is the request-scoped state. Fields are written by one stage at a
// time in chain order; the mutex guards the few that a streaming response
// updates while others may read (usage, status).
type Info struct {
	// Start is when the gateway received the request.
	Start time.Time
	// AuthMethod is how the caller authenticated.
	AuthMethod AuthMethod
	// KeyHash is the hex SHA-256 of the caller's credential ("" if none).
	KeyHash string
	// KeyID identifies the managed key, if any.
	KeyID string
	// CredentialsSent has bit i set when the request carried the i-th
	// header a caller's key is read from (keys.KeyHeaders), which the
	// auth stage removes once read: the audit records them as sent,
	// redacted.
	CredentialsSent uint8
	// Admin reports whether the caller may use /admin/*.
	Admin bool
	// UserPath is the caller's normalized user path.
	UserPath string
	// SessionID is the detected session, if any.
	SessionID string
	// UsageID is the id the request's usage record carries (set by the
	// audit stage when it records usage; zero otherwise): a budget charge
	// kept while the shared spend store is unreachable names it, so that
	// it is not counted again once the store is rebuilt from the records.
	UsageID [16]byte

	// RequestedModel is the model string the client sent.
	RequestedModel string
	// ResolvedModel is the model id sent upstream.
	ResolvedModel string
	// ProviderName is the provider instance that served the request.
	ProviderName string
	// ProviderType is that instance's family.
	ProviderType string
	// AliasUsed reports that the requested model was a virtual model that
	// the gateway resolved to a concrete target.
	AliasUsed bool
	// VirtualModels reports that the virtual-model stage ran: the
	// request's plan resolves the model through the virtual models and
	// names the failover targets (Plan).
	VirtualModels bool
	// Stream reports whether the response is streamed.
	Stream bool
	// CacheHit reports that the response cache answered the request. The
	// rate-limit stage charges nothing for such a request: cache hits are
	// served before enforcement and count nothing.
	CacheHit bool
	// RefusedBeforeUpstream reports that the proxy refused the request
	// before any provider was called: a saturated provider or model rule,
	// or a spent budget (BudgetExceeded) on a priced model. The user-path
	// stage then gives the request back instead of counting it.
	RefusedBeforeUpstream bool
	// BudgetRule names the budget of BudgetExceeded; nil without one.
	// (Pointers keep the record small: refusals are rare.)
	BudgetRule *Rule
	// RateLimitRule names the rate-limit rule that refused the request
	// (its error code rate_limit_exceeded), the last one when several
	// targets were refused; nil while none did.
	RateLimitRule *Rule
	// SessionRule names the session limit that refused the request (its
	// error code session_limit_exceeded): Subject is the user path the
	// session was counted on, Period the limit (max_requests, max_cost,
	// max_repeats); nil while none did.
	SessionRule *Rule
	// BudgetExceeded, when not nil, is the 429 budget_exceeded error of a
	// spent budget covering the caller. The rate-limit stage sets it;
	// BudgetRefusal decides which calls it refuses (the priced ones:
	// unpriced models are never spend).
	BudgetExceeded error
	// AnswerOpen reports that the answer is being written in parts (a
	// stream, or a body relayed as it arrives) and is not yet whole: a
	// client that goes away meanwhile did not get it. A handler that
	// answers in parts sets it before the first part and clears it once
	// the last part was sent.
	AnswerOpen bool
	// ErrorCode is the code of the gateway error the request was answered
	// with, or its type when it has no code; empty while none was written.
	// An answer that failed after it had begun (a stream the upstream
	// broke off) records its failure here too (apierr.Record).
	ErrorCode string
	// ErrorStatus is the HTTP status of that gateway error; 0 while none
	// was recorded. For an answer that failed after it had begun it is
	// the failure's status (502 for a broken upstream stream), not the
	// one the client already got, and the audit entry records it.
	ErrorStatus int
	// ErrorType is the type of that gateway error; empty while none was
	// written.
	ErrorType string
	// ErrorMessage is the message of that gateway error; empty while none
	// was written. It never contains a secret.
	ErrorMessage string

	// body is the shared request body, when a stage read it (SetBody,
	// hasBody).
	body    Body
	hasBody bool

	// plan is the request's resolved plan (SetPlan).
	plan *Plan
	// route is the request's route for routeMethod and routePath (Route).
	route                  *routes.Route
	routeOK                bool
	routeMethod, routePath string
	// started is the started gateway, as SetStarted recorded it.
	started any

	// firstToken is how long after Start the first event carrying the
	// answer's content was written to the client (MarkFirstToken); 0
	// while none was.
	firstToken time.Duration

	mu       sync.Mutex
	usage    catalog.Usage
	hasUsage bool
	// units are the units besides tokens the request consumed (SetUnits);
	// their Usage is unused.
	units    catalog.Consumption
	hasUnits bool
	// reported is the price the provider reported for the answer
	// (SetReportedCost).
	reported catalog.ReportedCost
	// cost memoizes Cost until the usage changes.
	cost              catalog.Breakdown
	priced, costKnown bool
	attempts          []Attempt
	revisions         []Revision
	// reservation is the budget reservation (SetReservation).
	reservation Reservation
}

// Revision is a change the gateway made to the request that the client
// did not ask for (a limit raised to fit the provider's rules), which the
// audit entry records among the request's revisions.
type Revision struct {
	// Rewriter names the change.
	Rewriter string
	// Detail is a JSON object that says what changed.
	Detail []byte
}

// AddRevision records a change the gateway made to the request.
func (i *Info) AddRevision(r Revision) {
	i.mu.Lock()
	i.revisions = append(i.revisions, r)
	i.mu.Unlock()
}

// Revisions returns the recorded changes to the request, in order.
func (i *Info) Revisions() []Revision {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Revision(nil), i.revisions...)
}

type ctxKey struct{}

// New returns a fresh Info stamped with the current time.
func New() *Info { return &Info{Start: time.Now(), AuthMethod: AuthNone} }

// With returns a context carrying info.
func With(ctx context.Context, info *Info) context.Context {
	return context.WithValue(ctx, ctxKey{}, info)
}

// From returns the Info in ctx, or nil.
func From(ctx context.Context) *Info {
	info, _ := ctx.Value(ctxKey{}).(*Info)
	return info
}

// SetUsage records the response's token usage.
func (i *Info) SetUsage(u catalog.Usage) {
	i.mu.Lock()
	i.usage, i.hasUsage = u, true
	i.priced = false
	i.mu.Unlock()
}

// DropUsage forgets the token usage SetUsage recorded and the price
// SetReportedCost recorded, for an answer whose usage turned out
// untrustworthy (catalog.CheckUsage): the request has no usage then,
// unless SetUnits recorded units.
func (i *Info) DropUsage() {
	i.mu.Lock()
	i.usage, i.hasUsage = catalog.Usage{}, i.hasUnits
	i.reported = catalog.ReportedCost{}
	i.priced = false
	i.mu.Unlock()
}

// SetUnits records the units besides tokens that the request consumed
// and its provider bills (the characters of a speech input, the seconds
// of a transcribed recording): they are priced with the tokens. The
// request then has usage, of zero tokens unless SetUsage records some.
// u.Usage is ignored.
func (i *Info) SetUnits(u catalog.Consumption) {
	i.mu.Lock()
	u.Usage = catalog.Usage{}
	i.units, i.hasUsage, i.hasUnits = u, true, true
	i.priced = false
	i.mu.Unlock()
}

// SetReportedCost records the price the provider reported for the
// answer (catalog.ReportedUSD), which then is the request's cost in
// place of the catalog's (see Cost). A later report replaces an earlier
// one (a stream's last usage event carries the final figure).
func (i *Info) SetReportedCost(c catalog.ReportedCost) {
	i.mu.Lock()
	i.reported = c
	i.priced = false
	i.mu.Unlock()
}

// Cost returns what the request cost and where the figure comes from
// (Breakdown.Source), as catalog.RequestCostOn decides it from
// ProviderName, ProviderType, ResolvedModel, the recorded usage and units (SetUnits)
// and the price the provider reported (SetReportedCost). It is computed
// once (until the usage changes), so every stage that charges or records
// spend (the audit entry, the usage record, the budgets) sees the same
// figure. ok is false when no usage was recorded or neither the provider
// nor the catalog priced the request: such a request's cost is unknown,
// not 0. A cache hit costs 0 (its tokens were paid for once, by the
// request that filled the cache). Callers must not set ProviderName,
// ProviderType or ResolvedModel after the first call.
func (i *Info) Cost() (b catalog.Breakdown, ok bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.CacheHit {
		return catalog.Breakdown{Currency: "USD", Source: catalog.CostSourceCatalog}, i.hasUsage
	}
	if !i.priced {
		i.priced = true
		i.cost, i.costKnown = catalog.Breakdown{}, false
		if i.hasUsage {
			c := i.units
			c.Usage = i.usage
			i.cost, i.costKnown = catalog.RequestCostOn(i.ProviderName, i.ProviderType, i.ResolvedModel, c, i.reported)
		}
	}
	return i.cost, i.costKnown
}

// CostAvoided is what a response-cache hit would have cost had a
// provider answered it: its usage priced by the catalog for the model and
// provider the cached answer came from. ok is false for any other request
// and when the catalog has no price.
func (i *Info) CostAvoided() (total float64, ok bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.CacheHit || !i.hasUsage {
		return 0, false
	}
	c := i.units
	c.Usage = i.usage
	b, ok := catalog.RequestCost(i.ProviderType, i.ResolvedModel, c, catalog.ReportedCost{})
	return b.Total, ok
}

// Usage returns the recorded usage and whether any was recorded.
func (i *Info) Usage() (catalog.Usage, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.usage, i.hasUsage
}

// AddAttempt records one upstream call.
func (i *Info) AddAttempt(a Attempt) {
	i.mu.Lock()
	i.attempts = append(i.attempts, a)
	i.mu.Unlock()
}

// EachAttempt calls f with each recorded upstream call in order, without
// copying them; f must not call the Info's methods.
func (i *Info) EachAttempt(f func(*Attempt)) {
	i.mu.Lock()
	defer i.mu.Unlock()
	for k := range i.attempts {
		f(&i.attempts[k])
	}
}

// Attempts returns a copy of the recorded upstream calls.
func (i *Info) Attempts() []Attempt {
	i.mu.Lock()
	defer i.mu.Unlock()
	return append([]Attempt(nil), i.attempts...)
}

// MarkFirstToken records t as when the first event carrying the answer's
// content was written to the client: a streamed answer's first token. Only
// the first call counts. The stage that writes the stream calls it, on the
// request's goroutine.
func (i *Info) MarkFirstToken(t time.Time) {
	if i.firstToken == 0 {
		i.firstToken = max(t.Sub(i.Start), 1) // 0 means unset
	}
}

// FirstToken returns when the answer's first token was written to the
// client, and false when no content was streamed.
func (i *Info) FirstToken() (time.Time, bool) {
	if i.firstToken == 0 {
		return time.Time{}, false
	}
	return i.Start.Add(i.firstToken), true
}

// Body is a request body read whole by an earlier stage, with one scan of
// its top level, so that later stages neither read nor scan it again.
type Body struct {
	// Bytes is the body as the client sent it. Stages must not modify it:
	// the audit record keeps it. A stage that edits the body in place
	// works on a copy.
	Bytes []byte
	// Fields are the members reqbody.Scan found; valid when ScanErr is nil.
	Fields reqbody.Fields
	// ScanErr is reqbody.Scan's refusal of the body (not a JSON object, a
	// repeated member), for the stage that answers it.
	ScanErr error
	// Editable reports that no stage but the proxy holds Bytes (the
	// proxy read it itself, as the stage that answers), so the proxy may
	// edit it in place.
	Editable bool
}

// SetBody records body, read whole, and scans its top level once.
func (i *Info) SetBody(body []byte) {
	i.body.Bytes = body
	i.body.Fields, i.body.ScanErr = reqbody.Scan(body)
	i.body.Editable = false
	i.hasBody = true
}

// Body returns the body an earlier stage read, or nil when none did (the
// stage then reads the request's body itself).
func (i *Info) Body() *Body {
	if !i.hasBody {
		return nil
	}
	return &i.body
}

// Reservation is a hold on the budgets covering the caller for the
// request's worst-case cost (budgets.Reservation), made when the request
// was admitted. Settle replaces it with the real cost, or releases it
// with cost 0; only the first call acts.
type Reservation interface {
	Settle(cost float64, at time.Time)
}

// SetReservation records r as the request's budget reservation, for the
// stage that admitted the request to settle once it has ended
// (SettleReservation).
func (i *Info) SetReservation(r Reservation) {
	i.mu.Lock()
	i.reservation = r
	i.mu.Unlock()
}

// SettleReservation settles the request's budget reservation with cost
// (USD; 0 releases it: the request failed, was cancelled or its client
// went away before it cost anything) at at, and reports whether there was
// one. The reservation is forgotten first, so however many paths end the
// request, it is settled once.
func (i *Info) SettleReservation(cost float64, at time.Time) bool {
	i.mu.Lock()
	r := i.reservation
	i.reservation = nil
	i.mu.Unlock()
	if r == nil {
		return false
	}
	r.Settle(cost, at)
	return true
}

// TakeReservation returns the request's budget reservation and forgets
// it (nil when there is none), for a stage that settles it itself.
func (i *Info) TakeReservation() Reservation {
	i.mu.Lock()
	defer i.mu.Unlock()
	r := i.reservation
	i.reservation = nil
	return r
}
