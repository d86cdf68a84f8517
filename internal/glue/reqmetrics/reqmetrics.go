// Package reqmetrics turns each finished request to a model endpoint into
// Prometheus metrics: the OpenTelemetry GenAI client and server metrics
// where the conventions define one (token usage, operation duration, time
// to first token, time per output token) and the gateway's own counters
// (requests, errors, cost, cache hits and savings, refusals, failovers,
// upstream attempts). The audit stage calls Observer.Observe once per
// request, whether or not auditing is on; nothing else counts requests.
//
// Labels are bounded: the user path only to a configured depth, models
// only once the request resolved to a configured provider, error codes
// only the gateway's own (others count as _OTHER), never a key or
// session id. The label children of a label combination are looked up
// once and kept, so observing a request allocates nothing once its
// combination has been seen.
package reqmetrics

import (
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
)

// Bucket boundaries the GenAI semantic conventions advise.
var (
	// TokenBuckets are those of gen_ai.client.token.usage: powers of 4
	// from 1 to 4^13 tokens.
	TokenBuckets = []float64{1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864}
	// DurationBuckets are those of gen_ai.client.operation.duration, in
	// seconds: doubling from 10 ms to 81.92 s.
	DurationBuckets = []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92}
	// TTFTBuckets are those of gen_ai.server.time_to_first_token, in
	// seconds.
	TTFTBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0}
	// TPOTBuckets are those of gen_ai.server.time_per_output_token, in
	// seconds.
	TPOTBuckets = []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5}
)

// Label names shared by the request families.
var requestLabels = []string{"operation", "provider", "provider_type", "request_model", "response_model", "user_path"}

// genAILabels label the GenAI histograms: the request's operation,
// provider and models, without the user path (a histogram is a series per
// bucket).
var genAILabels = []string{"operation", "provider", "provider_type", "request_model", "response_model"}

// Recorder holds the metric families. One Recorder serves the whole
// process, so that counts survive a config reload; each config registers
// it in its own registry (Register).
type Recorder struct {
	requests, cost, cacheHits, savings *prometheus.CounterVec
	errors                             *prometheus.CounterVec
	tokens, duration, ttft, tpot       *prometheus.HistogramVec

	refusals, failovers, attempts *prometheus.CounterVec

	series lazyMap[seriesKey, *series]
	errs   lazyMap[errKey, *errSeries]

	refusalCounters  lazyMap[refusalKey, prometheus.Counter]
	failoverCounters lazyMap[failoverKey, prometheus.Counter]
	attemptCounters  lazyMap[attemptKey, prometheus.Counter]
}

// New returns a Recorder with empty families.
func New() *Recorder {
	return &Recorder{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_requests_total",
			Help: "Finished requests to model endpoints, whatever their outcome.",
		}, requestLabels),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_errors_total",
			Help: "Requests to model endpoints answered with an error, by the gateway's error code (_OTHER for a code the gateway does not define, such as one an upstream sent).",
		}, []string{"operation", "provider", "code"}),
		cost: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_cost_usd_total",
			Help: "What the requests cost in USD, the figure the usage records carry: the provider's reported price, an operator's override or the catalog's (requests of unknown cost add nothing; cache hits cost 0).",
		}, requestLabels),
		cacheHits: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_cache_hits_total",
			Help: "Requests the response cache answered.",
		}, requestLabels),
		savings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_cache_savings_usd_total",
			Help: "What the answers the response cache served would have cost in USD, priced from the catalog.",
		}, requestLabels),
		tokens: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gen_ai_client_token_usage",
			Help:    "Tokens used per request (GenAI gen_ai.client.token.usage), by token_type input or output.",
			Buckets: TokenBuckets,
		}, append(append([]string(nil), genAILabels...), "token_type")),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "gen_ai_client_operation_duration_seconds",
			Help:    "Request duration in seconds, from arrival to the answer's end (GenAI gen_ai.client.operation.duration); error_type is the error code, empty on success.",
			Buckets: DurationBuckets,
		}, append(append([]string(nil), genAILabels...), "error_type")),
		ttft: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gen_ai_server_time_to_first_token_seconds",
			Help: "Time in seconds from a streamed request's arrival to the first event carrying the answer's content written to the client " +
				"(GenAI gen_ai.server.time_to_first_token); successful streams from a provider only.",
			Buckets: TTFTBuckets,
		}, genAILabels),
		tpot: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "gen_ai_server_time_per_output_token_seconds",
			Help: "Time in seconds per output token after the first of a successful stream: (end - first token) / (output tokens - 1) " +
				"(GenAI gen_ai.server.time_per_output_token).",
			Buckets: TPOTBuckets,
		}, genAILabels),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_refusals_total",
			Help: "Requests refused by a rate-limit rule (kind rate_limit), a spent budget (kind budget) or a session limit (kind session), by rule: " +
				"scope:subject:period for a rate-limit rule, subject:period for a budget, user_path:limit for a session limit, user paths cut to the configured depth.",
		}, []string{"kind", "rule"}),
		failovers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_failovers_total",
			Help: "Failovers: each call of a request after its first, from the provider of the call before to the provider of this one.",
		}, []string{"operation", "from_provider", "to_provider"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "modelgate_upstream_attempts_total",
			Help: "Calls to upstream providers, by the class of the upstream's status (2xx, 4xx, 5xx, ...; none when it gave no answer).",
		}, []string{"provider", "status_class"}),
	}
}

// Collectors returns the families, for registering.
func (r *Recorder) Collectors() []prometheus.Collector {
	return []prometheus.Collector{r.requests, r.errors, r.cost, r.cacheHits, r.savings, r.tokens, r.duration, r.ttft, r.tpot, r.refusals, r.failovers, r.attempts}
}

// Register registers the families with reg. A family already registered
// there (the same Recorder registered twice) is not an error.
func (r *Recorder) Register(reg prometheus.Registerer) error {
	for _, c := range r.Collectors() {
		if err := reg.Register(c); err != nil && !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
			return err
		}
	}
	return nil
}

// Observer observes finished requests into a Recorder, labelling user
// paths to a depth. It is cheap to copy.
type Observer struct {
	rec   *Recorder
	depth int
}

// Observer returns an Observer into r that labels user paths by their
// first depth segments (0: no user path label value).
func (r *Recorder) Observer(depth int) *Observer {
	return &Observer{rec: r, depth: max(depth, 0)}
}

// Outcome is how a request ended, as the audit stage determined it.
type Outcome struct {
	// Status is the HTTP status recorded for the request (499 for a client
	// that left before the whole answer).
	Status int
	// Code is the error code the request ended with, "" for a success.
	Code string
	// End is when the answer ended.
	End time.Time
}

// Observe records the finished request info to a route of shape, which
// ended with out. A nil Observer records nothing.
func (o *Observer) Observe(shape routes.Shape, info *reqinfo.Info, out Outcome) {
	if o == nil || info == nil {
		return
	}
	r := o.rec
	k := seriesKey{shape: shape, userPath: TruncateUserPath(info.UserPath, o.depth)}
	if info.ProviderName != "" {
		// Models are labelled only once the request resolved to a
		// configured provider: an unknown model a client made up never
		// becomes a series.
		k.provider, k.providerType = info.ProviderName, info.ProviderType
		k.requestModel, k.responseModel = info.RequestedModel, info.ResolvedModel
	}
	s := r.seriesFor(k)
	s.requests.Inc()
	if out.Code != "" {
		r.errSeriesFor(errKey{seriesKey: k, code: BoundCode(out.Code)}).observe(out.End.Sub(info.Start))
	} else {
		s.time.get(r.duration, s.timeLabels[:]).Observe(out.End.Sub(info.Start).Seconds())
	}
	usage, hasUsage := info.Usage()
	if ft, ok := info.FirstToken(); ok && out.Code == "" && !info.CacheHit {
		s.ttft.get(r.ttft, s.timeLabels[:5]).Observe(ft.Sub(info.Start).Seconds())
		if hasUsage && usage.OutputTokens > 1 {
			s.tpot.get(r.tpot, s.timeLabels[:5]).Observe(out.End.Sub(ft).Seconds() / float64(usage.OutputTokens-1))
		}
	}
	if hasUsage {
		s.tokensIn.get(r.tokens, s.tokensInLabels[:]).Observe(float64(max(usage.InputTokens, 0)))
		s.tokensOut.get(r.tokens, s.tokensOutLabels[:]).Observe(float64(max(usage.OutputTokens, 0)))
	}
	if info.CacheHit {
		s.cacheHits.get(r.cacheHits, s.labels[:]).Inc()
		if hasUsage {
			if b, ok := catalog.PriceConsumption(info.ProviderType, info.ResolvedModel, catalog.Consumption{Usage: usage}); ok && b.Total > 0 {
				s.savings.get(r.savings, s.labels[:]).Add(b.Total)
			}
		}
	} else if c, ok := info.Cost(); ok && c.Total > 0 {
		s.cost.get(r.cost, s.labels[:]).Add(c.Total)
	}
	switch out.Code {
	case CodeRateLimited:
		o.refused(refusalRateLimit, info.RateLimitRule)
	case CodeBudgetExceeded:
		o.refused(refusalBudget, info.BudgetRule)
	case CodeSessionLimited:
		o.refused(refusalSession, info.SessionRule)
	}
	o.attempts(shape, info)
}

// Codes of the refusals counted in modelgate_refusals_total.
const (
	// CodeRateLimited is the error code of a request a rate-limit rule
	// refused.
	CodeRateLimited = "rate_limit_exceeded"
	// CodeBudgetExceeded is the error code of a request a spent budget
	// refused.
	CodeBudgetExceeded = "budget_exceeded"
	// CodeSessionLimited is the error code of a request refused because
	// its session reached a session limit.
	CodeSessionLimited = "session_limit_exceeded"
)

// Kinds of refusal (the kind label).
const (
	refusalRateLimit = "rate_limit"
	refusalBudget    = "budget"
	refusalSession   = "session"
)

// refusalKey is a refusal's labels before formatting: the user path of a
// rule of that scope (or of a budget) already cut to the depth.
type refusalKey struct {
	kind string
	rule reqinfo.Rule
}

// refused counts a request the rule of kind refused (nil: a rule not
// named, counted as _OTHER).
func (o *Observer) refused(kind string, named *reqinfo.Rule) {
	var rule reqinfo.Rule
	if named != nil {
		rule = *named
	}
	if rule.Scope == "" || rule.Scope == "user_path" {
		rule.Subject = TruncateUserPath(rule.Subject, o.depth)
	}
	r := o.rec
	r.refusalCounters.get(refusalKey{kind, rule}, func(k refusalKey) prometheus.Counter {
		label := k.rule.Subject + ":" + k.rule.Period
		switch {
		case k.rule == reqinfo.Rule{}:
			label = OtherCode
		case k.rule.Scope != "":
			label = k.rule.Scope + ":" + label
		}
		return r.refusals.WithLabelValues(k.kind, label)
	}).Inc()
}

// failoverKey labels a failover.
type failoverKey struct {
	shape    routes.Shape
	from, to string
}

// attemptKey labels an upstream call.
type attemptKey struct {
	provider string
	class    uint8 // status / 100; 0 no answer
}

// statusClasses are the status_class values by status / 100.
var statusClasses = [...]string{"none", "1xx", "2xx", "3xx", "4xx", "5xx"}

// attempts counts the request's upstream calls and its failovers.
func (o *Observer) attempts(shape routes.Shape, info *reqinfo.Info) {
	r := o.rec
	prev := ""
	n := 0
	info.EachAttempt(func(at *reqinfo.Attempt) {
		if n > 0 {
			r.failoverCounters.get(failoverKey{shape, prev, at.Provider}, func(k failoverKey) prometheus.Counter {
				return r.failovers.WithLabelValues(Operation(k.shape), k.from, k.to)
			}).Inc()
		}
		prev, n = at.Provider, n+1
		if at.NotCalled {
			return
		}
		class := uint8(0)
		if c := at.StatusCode / 100; c > 0 && c < len(statusClasses) {
			class = uint8(c)
		}
		r.attemptCounters.get(attemptKey{at.Provider, class}, func(k attemptKey) prometheus.Counter {
			return r.attempts.WithLabelValues(k.provider, statusClasses[k.class])
		}).Inc()
	})
}

// lazyMap keeps the value of each key (a metric child, or the children of
// a label combination), made on first use by the function given then;
// keys are cloned before they are kept (see cloneKey).
type lazyMap[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

// get returns the value of k, made by mk on first use.
func (c *lazyMap[K, V]) get(k K, mk func(K) V) V {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	if ok {
		return v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok = c.m[k]; ok {
		return v
	}
	if c.m == nil {
		c.m = make(map[K]V)
	}
	k = cloneKey(k)
	v = mk(k)
	c.m[k] = v
	return v
}

// cloneKey copies the strings of a key about to be kept, so that it does
// not hold on to the request they were cut from.
func cloneKey[K comparable](k K) K {
	switch v := any(&k).(type) {
	case *refusalKey:
		v.kind = strings.Clone(v.kind)
		v.rule = reqinfo.Rule{Scope: strings.Clone(v.rule.Scope), Subject: strings.Clone(v.rule.Subject), Period: strings.Clone(v.rule.Period)}
	case *failoverKey:
		v.from, v.to = strings.Clone(v.from), strings.Clone(v.to)
	case *attemptKey:
		v.provider = strings.Clone(v.provider)
	case *seriesKey:
		*v = v.clone()
	case *errKey:
		v.seriesKey, v.code = v.seriesKey.clone(), strings.Clone(v.code)
	}
	return k
}

// seriesKey is one request label combination.
type seriesKey struct {
	shape                       routes.Shape
	provider, providerType      string
	requestModel, responseModel string
	userPath                    string
}

// series are the children of one seriesKey, each made when first used so
// that a combination has no series it never counted in (a request
// refused before any provider has no token usage).
type series struct {
	requests                  prometheus.Counter
	cost, cacheHits, savings  lazyChild[prometheus.Counter]
	tokensIn, tokensOut, time lazyChild[prometheus.Observer]
	ttft, tpot                lazyChild[prometheus.Observer]
	// labels are the request labels; genAI the GenAI histograms' labels,
	// the last one left for the token type or error type.
	labels, tokensInLabels, tokensOutLabels, timeLabels [6]string
}

// errKey is a request label combination with the error it ended with.
type errKey struct {
	seriesKey
	code string
}

// errSeries are the children of one errKey.
type errSeries struct {
	errors   prometheus.Counter
	duration prometheus.Observer
}

// observe counts one error that took d.
func (e *errSeries) observe(d time.Duration) {
	e.errors.Inc()
	e.duration.Observe(d.Seconds())
}

// childVec is a metric vector whose children are of type T: a
// *prometheus.CounterVec (Counter) or *prometheus.HistogramVec (Observer).
type childVec[T any] interface {
	WithLabelValues(lvs ...string) T
}

// lazyChild is a child of a metric vector, made on first use.
type lazyChild[T any] struct {
	p atomic.Pointer[T]
}

// get returns the child of vec labelled lv, making it on first use.
// Callers racing to make it get the same child from vec.
func (l *lazyChild[T]) get(vec childVec[T], lv []string) T {
	if c := l.p.Load(); c != nil {
		return *c
	}
	c := vec.WithLabelValues(lv...)
	l.p.Store(&c)
	return c
}

// seriesFor returns the children of k, made on first use.
func (r *Recorder) seriesFor(k seriesKey) *series {
	return r.series.get(k, func(k seriesKey) *series {
		s := &series{labels: [6]string{Operation(k.shape), k.provider, k.providerType, k.requestModel, k.responseModel, k.userPath}}
		s.tokensInLabels, s.tokensOutLabels, s.timeLabels = s.labels, s.labels, s.labels
		s.tokensInLabels[5], s.tokensOutLabels[5], s.timeLabels[5] = "input", "output", ""
		s.requests = r.requests.WithLabelValues(s.labels[:]...)
		return s
	})
}

// errSeriesFor returns the children of k, made on first use.
func (r *Recorder) errSeriesFor(k errKey) *errSeries {
	return r.errs.get(k, func(k errKey) *errSeries {
		op := Operation(k.shape)
		return &errSeries{
			errors:   r.errors.WithLabelValues(op, k.provider, k.code),
			duration: r.duration.WithLabelValues(op, k.provider, k.providerType, k.requestModel, k.responseModel, k.code),
		}
	})
}

// clone copies k's strings, so that a key kept in a map does not hold on
// to the request they were cut from.
func (k seriesKey) clone() seriesKey {
	k.provider, k.providerType = strings.Clone(k.provider), strings.Clone(k.providerType)
	k.requestModel, k.responseModel = strings.Clone(k.requestModel), strings.Clone(k.responseModel)
	k.userPath = strings.Clone(k.userPath)
	return k
}

// TruncateUserPath returns the first depth segments of the normalized
// user path p ("/team/alice" at depth 1 is "/team"): "/" for the root or
// an empty path, "" when depth is 0. It does not allocate.
func TruncateUserPath(p string, depth int) string {
	if depth <= 0 {
		return ""
	}
	if p == "" || p == "/" {
		return "/"
	}
	n := 0
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			n++
			if n == depth {
				return p[:i]
			}
		}
	}
	return p
}

// Operation is the operation name of requests to a route of shape: the
// GenAI gen_ai.operation.name where the conventions have one (chat for
// Chat Completions, Messages and Responses calls; embeddings), else the
// shape's own name (count_tokens, speech, transcription, passthrough,
// realtime, files, batch).
func Operation(shape routes.Shape) string {
	switch shape {
	case routes.ShapeChat, routes.ShapeMessages, routes.ShapeResponses:
		return "chat"
	case routes.ShapeEmbeddings:
		return "embeddings"
	}
	return shape.String()
}
