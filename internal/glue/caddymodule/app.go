// Package caddymodule is the modelgate Caddy app: it layers the
// configuration, opens the embedded store, builds the provider registry and
// the services the HTTP handlers use, and runs them across Caddy's config
// loads and reloads.
package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/audit"
	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/keys"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/domain/pricing"
	"github.com/modelgate/modelgate/internal/domain/selfusage"
	"github.com/modelgate/modelgate/internal/domain/sessions"
	"github.com/modelgate/modelgate/internal/domain/vmodels"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/reqmetrics"
	"github.com/modelgate/modelgate/internal/platform/config"
	"github.com/modelgate/modelgate/internal/storage/store"
	"github.com/modelgate/modelgate/internal/storage/store/pgstore"
	"github.com/modelgate/modelgate/internal/storage/store/redisstore"
	"github.com/modelgate/modelgate/internal/surface/admin"
)

func init() {
	caddy.RegisterModule(App{})
}

// Interface guards.
var (
	_ caddy.App         = (*App)(nil)
	_ caddy.Provisioner = (*App)(nil)
)

// stores shares one open bbolt file per path across config loads: a
// reload provisions and starts the new app while the old one still runs,
// and bbolt's file lock would otherwise make the new app wait for itself.
var stores = caddy.NewUsagePool()

// keyServices shares one managed-key service per store path, the same way:
// old and new config see the same keys (a key created through the old
// config during a reload is not lost to the new one), and the last holder
// persists pending last-used times before the store closes. Every Start
// takes one reference in each pool and every Stop releases both, keys
// first, so a service never outlives its store.
var keyServices = caddy.NewUsagePool()

// App is the modelgate Caddy app (JSON `apps.modelgate`, Caddyfile global
// option `modelgate`). It owns the providers, the store and the services
// shared by the modelgate_* HTTP handlers.
type App struct {
	// Config holds every gateway setting; see package config. Environment
	// variables override these values, and these override the YAML file.
	config.Config

	// ConfigFile is an optional YAML file with the same schema as Config,
	// at lower precedence than this config and the environment.
	ConfigFile string `json:"config_file,omitempty"`

	// ReadBodyTimeout bounds the time a client may take to send a whole
	// request body, counted from the moment the gateway's first handler
	// sees the request; a client still sending then has its connection
	// closed. Zero or unset means one minute. It is a hard bound on top of
	// the HTTP server's own timeouts (read_header, read_body_idle, idle),
	// which a slow client resets by sending a byte now and then.
	ReadBodyTimeout caddy.Duration `json:"read_body_timeout,omitempty"`

	effective config.Config
	warnings  []string
	caddyCtx  caddy.Context // to read the http app's servers in Start
	logger    *zap.Logger
	auth      *keys.Authenticator
	registry  *providers.Registry
	proxy     *proxy.Service
	storePath string
	store     *store.Store
	cancel    context.CancelFunc

	// rateRules are the rules seeded by configuration, read in Provision
	// so that malformed ones abort startup; limiterRef hands the engine
	// to the proxy and GET /v1/usage once Start has it.
	rateRules  []limits.Rule
	limiterRef *limiterRef

	// budgetSeed are the budgets seeded by configuration, read in
	// Provision so that malformed ones abort startup; budgetSvc is the
	// shared budgets service once Start has it, enforced when budgetsOn.
	budgetSeed  []budgets.Budget
	budgetSvc   *budgets.Service
	budgetsOn   bool
	budgetsHeld bool // this instance holds a budgetServices reference
	budgetRef   *budgetRef

	// sessionSeed are the session limits of the configuration, read in
	// Provision; sessionGuard is the shared runaway-session guard once
	// Start has it.
	sessionSeed  []sessions.Limit
	sessionGuard *sessions.Guard
	sessionsHeld bool // this instance holds a sessionGuards reference

	// keySvc and adminAPI need the store, which opens in Start; they are
	// set before ready is closed and read only after it (see Ready).
	keySvc     *keys.Service
	keysHeld   bool   // this instance holds a keyServices reference
	keysKey    string // the keyServices key it holds (see keysPoolKey)
	limits     *limits.Engine
	limitsHeld bool // this instance holds a limiters reference
	adminAPI   *admin.Handler
	selfUsage  *selfusage.Handler
	openHosts  *openHosts // the Caddy sites' host names, for Runtime.OpenHostAllowed
	ready      chan struct{}
	startErr   error
	// rt is the started app's Runtime, set before ready is closed.
	rt *Runtime

	// vmodels holds the virtual models and failover routes in force.
	vmodels *vmodels.Service
	// pricing holds the price overrides (configuration and stored);
	// recalc reprices stored usage (nil with usage tracking off).
	pricing *pricing.Service
	recalc  *pricing.Recalculator
	// vmodelsWarned are the warnings about configured targets already
	// logged (warnUnlistedTargets).
	vmodelsWarned map[string]bool
	// respCache is the response cache when it is on (set in Start);
	// cacheHeld reports that this instance holds a caches reference.
	respCache *ResponseCache
	cacheHeld bool
	// batchesRef hands the batches service to the proxy once Start has
	// it; batchesHeld says this instance holds a batchServices reference.
	batchesRef  *batchesRef
	batchesHeld bool
	// responsesRef hands the stored-responses service to the proxy once
	// Start has it (nil with responses.enabled off); responsesHeld says
	// this instance holds a responseServices reference.
	responsesRef  *responsesRef
	responsesHeld bool

	// audit is the audit machinery (recorder, storage, queries, hub and
	// retention loop), set in Start and stopped and flushed in Stop.
	audit *atomic.Pointer[auditParts]

	// reqMetrics observes each finished model request into the process's
	// request metrics (provisionRequestMetrics).
	reqMetrics *reqmetrics.Observer

	// pg and redis are the networked backends when the configuration
	// names them (see openBackends), nil otherwise.
	pg    *pgstore.DB
	redis *redisstore.Client
	// fanout joins the other gateway processes over Redis (see
	// startFanout); nil without Redis.
	fanout *fanout

	// gcRelease gives up this instance's minimum heap for the garbage
	// collector (see package gcpace); nil when it holds none.
	gcRelease func()
}

// CaddyModule returns the Caddy module information.
func (App) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "modelgate",
		New: func() caddy.Module { return new(App) },
	}
}

// Provision layers the configuration (environment over this config over
// the YAML file over defaults), validates it and builds the providers.
// It opens nothing that a concurrent instance might hold; Start does.
func (a *App) Provision(ctx caddy.Context) error {
	a.logger = ctx.Logger()
	a.caddyCtx = ctx
	var fromYAML config.Config
	if a.ConfigFile != "" {
		var err error
		if fromYAML, err = config.LoadYAMLFile(a.ConfigFile); err != nil {
			return fmt.Errorf("modelgate: %w", err)
		}
	}
	env, err := config.FromEnv(os.Environ())
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	eff, warnings, err := config.Resolve(resolveSecrets(fromYAML), resolveSecrets(a.Config), env)
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	a.effective, a.warnings = eff, warnings
	for _, w := range warnings {
		a.logger.Warn(w)
	}
	if a.storePath, err = filepath.Abs(eff.Storage); err != nil {
		return fmt.Errorf("modelgate: storage %q: %w", eff.Storage, err)
	}
	if a.rateRules, err = eff.SeededRateLimitRules(env); err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	a.auth = keys.NewAuthenticator(eff.MasterKey)
	entries, err := buildProviders(eff.Providers, a.logger)
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	a.registry = providers.NewRegistry(entries, providers.RegistryOptions{
		RefreshInterval: time.Duration(eff.Server.ModelsRefreshSeconds) * time.Second,
		Timeout:         time.Duration(eff.Server.ModelsTimeoutSeconds) * time.Second,
		Logger:          a.logger.Named("models"),
	})
	a.proxy = &proxy.Service{
		Registry:     a.registry,
		MaxBodyBytes: eff.Server.MaxRequestBodyBytes,
		Logger:       a.logger.Named("proxy"),
		Upstreams:    upstreams(eff.Providers),
		Passthrough: proxy.Passthrough{Enabled: eff.Passthrough.EnabledProviders,
			GatewayHeaders: []string{eff.Server.UserPathHeader}},
		UsageRejected: countUsageRejected,
		ServerTiming:  eff.Server.ServerTimingOn(),
		// Off by default: providers are third parties.
		PropagateTrace: eff.Tracing.PropagateUpstreamOn(),
	}
	if ps := eff.SecretPolicies; len(ps) > 0 {
		a.proxy.SecretAction = func(userPath string) audit.SecretAction { return config.SecretActionFor(ps, userPath) }
		a.proxy.Secrets = audit.NewRedactor(providerKeys(eff.Providers), eff.MasterKey)
	}
	// With usage tracking off, GET /v1/usage reports zeroed totals.
	a.selfUsage = &selfusage.Handler{Usage: selfusage.Totals{}}
	a.proxy.SelfUsage = a.selfUsage
	if eff.Usage.On() {
		a.selfUsage.Usage = a.selfUsageTotals()
	}
	if err := a.provisionBudgets(); err != nil {
		return err
	}
	if err := a.provisionSessions(); err != nil {
		return err
	}
	if err := a.provisionVirtualModels(env.Config.VirtualModels); err != nil {
		return err
	}
	if err := a.provisionPricing(); err != nil {
		return err
	}
	a.proxy.Budgets = a.budgetRef
	idle, maxDur, err := eff.Realtime.Limits()
	if err != nil {
		return fmt.Errorf("modelgate: %w", err)
	}
	a.proxy.Realtime = proxy.RealtimeLimits{Idle: idle, Max: maxDur}
	a.limiterRef = new(limiterRef)
	if eff.RateLimits.On() {
		a.proxy.Limits = a.limiterRef
		a.selfUsage.RateLimits = selfusage.Limits{Source: a.limiterRef}
	}
	a.batchesRef = new(batchesRef)
	a.proxy.Batches = a.batchesRef
	a.provisionResponses()
	a.ready = make(chan struct{})
	a.audit = new(atomic.Pointer[auditParts])
	if err := a.registerAuditMetrics(ctx); err != nil {
		return fmt.Errorf("modelgate: registering audit metrics: %w", err)
	}
	if err := a.registerRateLimitMetrics(ctx); err != nil {
		return fmt.Errorf("modelgate: registering rate-limit metrics: %w", err)
	}
	if err := registerUsageMetrics(ctx); err != nil {
		return fmt.Errorf("modelgate: registering usage metrics: %w", err)
	}
	if err := a.registerStoreMetrics(ctx); err != nil {
		return fmt.Errorf("modelgate: registering storage metrics: %w", err)
	}
	if err := a.provisionRequestMetrics(ctx); err != nil {
		return fmt.Errorf("modelgate: registering request metrics: %w", err)
	}
	return nil
}

// Start opens (or shares) the store, the managed-key service and the
// rate-limit engine (installing this config's rules), builds the admin
// API, marks the app ready for the handlers and starts fetching model
// listings in the background.
//
// The store opens here rather than in Provision because Caddy provisions
// a config it may never start (`caddy validate`, `adapt`, a failed load)
// and, on reload, provisions the new config while the old one still holds
// the bbolt file lock. Everything that needs the store is therefore built
// here too, and the handlers wait for it through Ready: Caddy starts
// apps in no fixed order, so the HTTP server may already accept requests.
func (a *App) Start() error {
	err := a.start()
	a.startErr = err
	if err == nil {
		a.rt = a.runtime()
	}
	select {
	case <-a.ready: // Caddy starts an app once; this only guards misuse.
	default:
		close(a.ready)
	}
	return err
}

func (a *App) start() error {
	if err := a.openBackends(); err != nil {
		return err
	}
	val, _, err := stores.LoadOrNew(a.storePath, func() (caddy.Destructor, error) {
		return store.Open(store.Options{Path: a.storePath, Logger: a.logger.Named("store"), OnCommit: observeBoltCommit})
	})
	if err != nil {
		a.releaseBackends()
		if errors.Is(err, store.ErrLocked) {
			return fmt.Errorf("modelgate: opening storage: %w; another gateway process may be using this data file: "+
				"give each process its own (storage, or MODELGATE_DATA_PATH) and share state through postgres and redis", err)
		}
		return fmt.Errorf("modelgate: opening storage: %w", err)
	}
	a.store = val.(*store.Store)
	st := a.store
	a.keysKey = a.keysPoolKey()
	kv, _, err := keyServices.LoadOrNew(a.keysKey, func() (caddy.Destructor, error) { return a.newKeyService(st) })
	if err != nil {
		a.store = nil
		_, _ = stores.Delete(a.storePath)
		a.releaseBackends()
		return fmt.Errorf("modelgate: loading managed keys: %w", err)
	}
	a.keySvc, a.keysHeld = keyServiceOf(kv), true
	if err := a.openLimiter(); err != nil {
		a.keySvc, a.keysHeld = nil, false
		_, _ = keyServices.Delete(a.keysKey)
		a.store = nil
		_, _ = stores.Delete(a.storePath)
		a.releaseBackends()
		return err
	}
	if err := a.openBudgets(); err != nil {
		_ = a.releaseLimiter()
		a.keySvc, a.keysHeld = nil, false
		_, _ = keyServices.Delete(a.keysKey)
		a.store = nil
		_, _ = stores.Delete(a.storePath)
		a.releaseBackends()
		return err
	}
	if err := a.openSessions(); err != nil {
		a.logger.Error("session limits are off: " + err.Error())
	}
	if err := a.openCache(); err != nil {
		a.logger.Error("response cache is off: " + err.Error())
	}
	a.auth.UseKeys(a.keySvc)
	a.loadVirtualModels()
	a.audit.Store(startAudit(a.effective, st, a.pg, a.logger.Named("audit")))
	a.loadPricing()
	if err := a.openBatches(); err != nil {
		a.logger.Warn("batches are unavailable: " + err.Error())
	}
	if err := a.openResponses(); err != nil {
		a.logger.Warn("stored responses are unavailable: " + err.Error())
	}
	a.startFanout()
	a.adminAPI = admin.New(a.withPricing(a.withRouting(admin.Options{
		Config:     a.effective,
		Providers:  a.providerInfo(),
		Version:    Version,
		Keys:       a.keySvc,
		Audit:      a.AuditQueries(),
		Usage:      a.UsageQueries(),
		Live:       a.LiveHub(),
		RateLimits: a.limits,
		Budgets:    a.adminBudgets(),
		Sessions:   a.sessionGuard,
		Cache:      a.adminCache(),
		Logger:     a.logger.Named("admin"),
		Changes:    a.changeNotifier(),
	})))
	servers := httpServers(a.caddyCtx)
	a.openHosts = newOpenHosts(siteHosts(servers))
	warnAccessLogs(a.caddyCtx, servers, a.logger)
	if !a.auth.Required() {
		a.logger.Warn("no master key and no managed keys: model endpoints answer only clients on a loopback address, without a key, "+
			"and only for a Host that is localhost, a loopback address or a host the site names; set GATEWAY_MASTER_KEY to serve others",
			zap.Strings("site_hosts", a.openHosts.names()))
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	a.holdGCMinHeap()
	a.registry.Start(ctx)
	a.watchUnlistedTargets(ctx)
	a.logger.Info("modelgate started",
		zap.String("storage", a.storePath),
		zap.Bool("postgres", a.pg != nil),
		zap.Int("providers", len(a.effective.Providers)))
	return nil
}

// Stop stops background work and releases this instance's hold on the
// store; the last holder flushes and closes it.
func (a *App) Stop() error {
	if a.cancel != nil {
		a.cancel()
		a.cancel = nil
	}
	if a.gcRelease != nil {
		a.gcRelease()
		a.gcRelease = nil
	}
	var errs []error
	a.stopFanout()
	// Running recalculations stop while the usage storage is open.
	a.stopPricing()
	// The batch runner stops first (when this is its last holder), so
	// that the usage it records reaches the audit queue flushed next.
	if err := a.releaseBatches(); err != nil {
		errs = append(errs, fmt.Errorf("modelgate: stopping batches: %w", err))
	}
	// Queued stored responses are committed while the store is open.
	if err := a.releaseResponses(); err != nil {
		errs = append(errs, fmt.Errorf("modelgate: stopping stored responses: %w", err))
	}
	// Queued audit entries and usage records are committed first, while
	// the store is certainly open.
	if err := a.auditLoaded().stop(); err != nil {
		errs = append(errs, fmt.Errorf("modelgate: flushing audit records: %w", err))
	}
	// The rate-limit engine goes first: its last holder writes a final
	// counter snapshot, which the store must still be open to commit.
	// Requests still in flight keep admitting in memory.
	if err := a.releaseLimiter(); err != nil {
		errs = append(errs, err)
	}
	if err := a.releaseBudgets(); err != nil {
		errs = append(errs, err)
	}
	if err := a.releaseSessions(); err != nil {
		errs = append(errs, err)
	}
	if err := a.releaseCache(); err != nil {
		errs = append(errs, err)
	}
	if a.keysHeld {
		// Released before the store: the last holder queues pending
		// last-used times, which closing the store then commits. The
		// service itself stays reachable for requests still in flight.
		a.keysHeld = false
		if _, err := keyServices.Delete(a.keysKey); err != nil {
			errs = append(errs, fmt.Errorf("modelgate: closing managed keys: %w", err))
		}
	}
	if a.store != nil {
		a.store = nil
		if _, err := stores.Delete(a.storePath); err != nil {
			errs = append(errs, fmt.Errorf("modelgate: closing storage: %w", err))
		}
	}
	a.releaseBackends()
	return errors.Join(errs...)
}

// Proxy returns the model-endpoint service.
func (a *App) Proxy() *proxy.Service { return a.proxy }

// Store returns the open store, or nil before Start.
func (a *App) Store() *store.Store { return a.store }

// providerInfo lists the provider instances in service.
func (a *App) providerInfo() []admin.ProviderInfo {
	ps := a.registry.Providers()
	out := make([]admin.ProviderInfo, len(ps))
	for i, p := range ps {
		out[i] = admin.ProviderInfo{Name: p.Name(), Type: p.Type()}
	}
	return out
}

// DefaultReadBodyTimeout is how long a client has, by default, to send a
// whole request body, counted from the moment the gateway's first handler
// sees the request.
const DefaultReadBodyTimeout = time.Minute

// EffectiveReadBodyTimeout is how long a client has to send a whole
// request body: the configured read_body_timeout, or
// DefaultReadBodyTimeout when it is unset or zero. A client still sending when it runs out has its
// connection closed, whether or not its credential was valid.
func (a *App) EffectiveReadBodyTimeout() time.Duration {
	if a.ReadBodyTimeout > 0 {
		return time.Duration(a.ReadBodyTimeout)
	}
	return DefaultReadBodyTimeout
}
