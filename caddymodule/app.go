// Package caddymodule is the modelgate Caddy app: it layers the
// configuration, opens the embedded store, builds the provider registry and
// the services the HTTP handlers use, and runs them across Caddy's config
// loads and reloads.
package caddymodule

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/config"
	"github.com/modelgate/modelgate/keys"
	"github.com/modelgate/modelgate/providers"
	"github.com/modelgate/modelgate/proxy"
	"github.com/modelgate/modelgate/store"
)

func init() {
	caddy.RegisterModule(App{})
}

// Interface guards.
var (
	_ caddy.App          = (*App)(nil)
	_ caddy.Provisioner  = (*App)(nil)
	_ caddy.CleanerUpper = (*App)(nil)
)

// stores shares one open bbolt file per path across config loads: a
// reload provisions and starts the new app while the old one still runs,
// and bbolt's file lock would otherwise make the new app wait for itself.
var stores = caddy.NewUsagePool()

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

	effective config.Config
	warnings  []string
	logger    *zap.Logger
	auth      *keys.Authenticator
	registry  *providers.Registry
	proxy     *proxy.Service
	storePath string
	store     *store.Store
	cancel    context.CancelFunc
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
	eff, warnings, err := config.Resolve(fromYAML, a.Config, env)
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
	}
	if !a.auth.Required() {
		a.logger.Warn("no master key configured: model endpoints are open to anyone who can reach them; set GATEWAY_MASTER_KEY")
	}
	return nil
}

// Start opens (or shares) the store and starts fetching model listings in
// the background.
func (a *App) Start() error {
	val, _, err := stores.LoadOrNew(a.storePath, func() (caddy.Destructor, error) {
		return store.Open(store.Options{Path: a.storePath, Logger: a.logger.Named("store")})
	})
	if err != nil {
		return fmt.Errorf("modelgate: opening storage: %w", err)
	}
	a.store = val.(*store.Store)
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel = cancel
	a.registry.Start(ctx)
	a.logger.Info("modelgate started",
		zap.String("storage", a.storePath),
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
	if a.store != nil {
		a.store = nil
		if _, err := stores.Delete(a.storePath); err != nil {
			return fmt.Errorf("modelgate: closing storage: %w", err)
		}
	}
	return nil
}

// Cleanup releases what Provision built.
func (a *App) Cleanup() error { return nil }

// Effective returns the configuration in force after layering.
func (a *App) Effective() config.Config { return a.effective }

// Auth returns the credential checker.
func (a *App) Auth() *keys.Authenticator { return a.auth }

// Proxy returns the model-endpoint service.
func (a *App) Proxy() *proxy.Service { return a.proxy }

// Registry returns the provider registry.
func (a *App) Registry() *providers.Registry { return a.registry }

// Store returns the open store, or nil before Start.
func (a *App) Store() *store.Store { return a.store }

// AllowUnauthenticatedAdmin reports whether /admin/* is open when no
// credential exists at all.
func (a *App) AllowUnauthenticatedAdmin() bool {
	return a.effective.Admin.UnauthenticatedAllowed()
}
