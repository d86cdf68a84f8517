package caddymodule

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/modelgate/modelgate/internal/domain/batches"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// batchServices shares one batches service (and so one background
// runner) per store path across config loads, like keyServices: a reload
// hands the running batches to the new config's pipeline instead of
// starting them twice.
var batchServices = caddy.NewUsagePool()

// batchesRef hands the batches service that Start opens to the proxy,
// which is built in Provision.
type batchesRef struct {
	h atomic.Pointer[batches.Handler]
}

// ServeHTTP serves the files and batches routes, or 503 before Start.
func (b *batchesRef) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := b.h.Load()
	if h == nil {
		writeNotReady(w, r, "batches")
		return
	}
	h.ServeHTTP(w, r)
}

// writeNotReady answers 503 not_ready for a service (what) that Start has
// not opened yet.
func writeNotReady(w http.ResponseWriter, r *http.Request, what string) {
	apierr.WriteFor(w, r, apierr.New(http.StatusServiceUnavailable, apierr.TypeProvider,
		what+" are not available yet").WithCode("not_ready"))
}

// openBatches opens (or shares) the batches service, points its runner at
// this config's pipeline and resumes unfinished batches.
func (a *App) openBatches() error {
	st := a.store
	v, _, err := batchServices.LoadOrNew(a.batchesKey(), func() (caddy.Destructor, error) {
		svc := batches.New(batches.Options{Storage: a.batchStorage(st), Logger: a.logger.Named("batches"),
			UsageRejected: countUsageRejected})
		// With a shared storage, take over the batches of processes that died.
		svc.KeepResuming(batches.DefaultResumeEvery)
		return svc, nil
	})
	if err != nil {
		return err
	}
	svc := v.(*batches.Service)
	a.batchesHeld = true
	p := batches.Pipeline{Executor: proxyExecutor{a.proxy}, Remote: providerBatches{a.registry, a.proxy}}
	if rec := a.AuditRecorder(); rec != nil {
		p.Usage = rec
	}
	if bs := a.Budgets(); bs != nil {
		p.Spend = bs
	}
	svc.Use(p)
	a.batchesRef.h.Store(&batches.Handler{Service: svc, MaxFileBytes: a.effective.Server.MaxRequestBodyBytes})
	if err := svc.Resume(); err != nil {
		a.logger.Warn("resuming batches: " + err.Error())
	}
	return nil
}

// releaseBatches drops this config's hold on the batches service; the
// last holder stops the runner, leaving unfinished batches to resume.
func (a *App) releaseBatches() error {
	if !a.batchesHeld {
		return nil
	}
	a.batchesHeld = false
	_, err := batchServices.Delete(a.batchesKey())
	return err
}

// proxyExecutor runs batch lines through the model-endpoint service, as
// requests that already passed authentication and the user-path stages
// (the batch submission did): provider and model rate limits still apply,
// and so do the virtual models and access policies (a line for a model the
// caller may not use is refused with 403 model_access_denied).
type proxyExecutor struct{ svc *proxy.Service }

// Execute implements batches.Executor.
func (e proxyExecutor) Execute(ctx context.Context, userPath, endpoint string, body []byte) batches.Outcome {
	info := reqinfo.New()
	info.UserPath = userPath
	info.VirtualModels = true
	req, err := http.NewRequestWithContext(reqinfo.With(ctx, info), http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return batches.Outcome{Status: http.StatusInternalServerError}
	}
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	rw := &bufferWriter{header: make(http.Header)}
	e.svc.ServeHTTP(rw, req)
	if rw.status == 0 {
		rw.status = http.StatusOK
	}
	out := batches.Outcome{Status: rw.status, Body: rw.body.Bytes(),
		ProviderName: info.ProviderName, ProviderType: info.ProviderType, Model: info.ResolvedModel}
	if s, err := strconv.Atoi(rw.header.Get("Retry-After")); err == nil && s > 0 {
		out.RetryAfter = time.Duration(s) * time.Second
	}
	if out.Status < 400 {
		out.Usage, out.HasUsage = info.Usage()
		if c, ok := info.Cost(); ok {
			out.Cost, out.Priced = c, true
		}
	}
	return out
}

// bufferWriter is an http.ResponseWriter keeping the answer in memory.
type bufferWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *bufferWriter) Header() http.Header { return w.header }

func (w *bufferWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *bufferWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.body.Write(b)
}

// Flush implements http.Flusher (streams are kept whole).
func (w *bufferWriter) Flush() {}

// providerBatches is batches.Remote over the provider registry: a model
// whose provider has its own batch API (providers.BatchAPI) runs there,
// unless an access policy of px's virtual models keeps it from the caller.
type providerBatches struct {
	reg *providers.Registry
	px  *proxy.Service
}

// Route implements batches.Remote. A virtual model's name (which may
// shadow a provider model), a model a policy keeps from userPath and an
// endpoint the provider's batch API does not run are left to the
// gateway, which routes each line, or refuses it, itself.
func (p providerBatches) Route(ctx context.Context, userPath, endpoint, model string) (string, string, string, bool) {
	vm := p.px.VirtualModels
	if vm.IsAlias(model) {
		return "", "", "", false
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	pr, id, err := p.reg.Resolve(ctx, model)
	if err != nil || !pr.Supports(providers.EndpointBatches) {
		return "", "", "", false
	}
	if api, ok := pr.(providers.BatchAPI); !ok || !api.BatchesOf(endpoint) || !vm.Allowed(userPath, pr.Name(), id) {
		return "", "", "", false
	}
	return pr.Name(), pr.Type(), id, true
}

// api returns the batch API of the provider instance named name.
func (p providerBatches) api(name string) (providers.BatchAPI, error) {
	pr, ok := p.reg.Provider(name)
	if !ok {
		return nil, fmt.Errorf("provider %s is no longer configured", name)
	}
	api, ok := pr.(providers.BatchAPI)
	if !ok || !pr.Supports(providers.EndpointBatches) {
		return nil, fmt.Errorf("provider %s has no batch API", name)
	}
	return api, nil
}

// Submit implements batches.Remote.
func (p providerBatches) Submit(ctx context.Context, provider, endpoint string, input []byte) (string, error) {
	api, err := p.api(provider)
	if err != nil {
		return "", err
	}
	return api.SubmitBatch(ctx, endpoint, input)
}

// Poll implements batches.Remote.
func (p providerBatches) Poll(ctx context.Context, provider, id string) (batches.RemoteBatch, error) {
	api, err := p.api(provider)
	if err != nil {
		return batches.RemoteBatch{}, err
	}
	b, err := api.Batch(ctx, id)
	return batches.RemoteBatch{Status: b.Status, Total: b.Total, Completed: b.Completed, Failed: b.Failed,
		OutputFileID: b.OutputFileID, ErrorFileID: b.ErrorFileID, Error: b.Error}, err
}

// Fetch implements batches.Remote.
func (p providerBatches) Fetch(ctx context.Context, provider, fileID string) ([]byte, error) {
	api, err := p.api(provider)
	if err != nil {
		return nil, err
	}
	return api.BatchFile(ctx, fileID)
}

// Cancel implements batches.Remote.
func (p providerBatches) Cancel(ctx context.Context, provider, id string) error {
	api, err := p.api(provider)
	if err != nil {
		return err
	}
	return api.CancelBatch(ctx, id)
}

// batchesKey names the batches service of this config in the
// batchServices pool: one per store and PostgreSQL database.
func (a *App) batchesKey() string { return a.storePath + "\x00postgres=" + a.effective.Postgres }
