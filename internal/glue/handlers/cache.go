package handlers

import (
	"net/http"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"

	"github.com/modelgate/modelgate/internal/domain/cache"
	"github.com/modelgate/modelgate/internal/gateway/proxy"
	"github.com/modelgate/modelgate/internal/glue/caddymodule"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
	"github.com/modelgate/modelgate/internal/request/routes"
	"github.com/modelgate/modelgate/internal/request/userpath"
)

func init() {
	caddy.RegisterModule(Cache{})
}

// Interface guards.
var (
	_ caddy.Provisioner           = (*Cache)(nil)
	_ caddyhttp.MiddlewareHandler = (*Cache)(nil)
)

// CacheHeader is the response header that says how the response cache
// treated a request to a cacheable route: CacheHit, CacheMiss or
// CacheBypass.
const CacheHeader = "X-Modelgate-Cache"

// Values of CacheHeader.
const (
	// CacheHit: the answer came from the cache; no provider was called.
	CacheHit = "hit"
	// CacheMiss: the cache had no answer; the provider answered.
	CacheMiss = "miss"
	// CacheBypass: the cache was not asked (Cache-Control: no-cache, or a
	// request the proxy refuses before resolving its model).
	CacheBypass = "bypass"
)

// keptHeaders are the response headers stored with an answer and
// replayed on a hit.
var keptHeaders = []string{"Content-Type", "Cache-Control", "X-Accel-Buffering", "X-Modelgate-Provider",
	"X-Request-Id", "Request-Id", "Openai-Version"}

// Cache (modelgate_cache) answers repeated requests to the cacheable
// routes (chat completions, responses, messages, embeddings) from the
// response cache when it is enabled. It sits after authentication and
// before the rate-limit stage: a hit is answered here, so it counts
// against no rate limit or budget, and is marked on the request's
// reqinfo.Info (CacheHit) for the audit stage, with the stored usage.
//
// The key covers the endpoint, the provider and model the request
// resolves to (resolved as the proxy does, without calling upstream),
// streaming or not, the user path (unless cache.scope is global) and the
// body with its JSON object keys sorted. A miss goes on down the chain and
// its answer is stored when it is a complete 200 from the first provider
// tried, no longer than cache.max_entry_bytes: a longer one stops being
// copied as soon as it outgrows that and passes through uncached.
// Identical misses in flight at once make one upstream call: the others
// wait (each bounded by its own context) and are answered with it, or
// make their own calls as soon as it is known not to be stored.
//
// Cache-Control: no-cache skips the lookup (and coalescing), no-store the
// write. Every answer on a cacheable route carries X-Modelgate-Cache.
type Cache struct {
	app *caddymodule.App
}

// CaddyModule returns the Caddy module information.
func (Cache) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{ID: "http.handlers.modelgate_cache", New: func() caddy.Module { return new(Cache) }}
}

// Provision connects the handler to the modelgate app.
func (h *Cache) Provision(ctx caddy.Context) (err error) {
	h.app, err = loadApp(ctx)
	return err
}

// ServeHTTP answers from the cache or passes the request on, storing its
// answer.
func (h *Cache) ServeHTTP(w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	rt, ok := reqinfo.Route(r)
	if !ok || !rt.Cacheable {
		return next.ServeHTTP(w, r)
	}
	gw, err := started(h.app, r)
	if err != nil || gw.Cache == nil {
		return next.ServeHTTP(w, r)
	}
	return serveCached(gw.Cache, gw.Proxy, rt, w, r, next)
}

// serveCached serves r, a request to the cacheable route rt, from rc or
// through next. The key is made from the request's plan (px.Plan): its
// target and stream flag, and the body the plan was made from.
func serveCached(rc *caddymodule.ResponseCache, px *proxy.Service, rt *routes.Route, w http.ResponseWriter, r *http.Request, next caddyhttp.Handler) error {
	info, r := requestInfo(r)
	noCache, noStore := cacheControl(r.Header)
	p := px.Plan(r)
	if p != nil && bodyTimedOut(p.Err) {
		return requestTimedOut(w, r)
	}
	var body []byte
	var key cache.Key
	ok := p.Settled()
	if ok {
		body = info.Body().Bytes
		ok = rc.MaxBodyBytes <= 0 || int64(len(body)) <= rc.MaxBodyBytes
	}
	if ok {
		var err error
		key, err = cache.KeyOf(keyRequest(rc, rt, info, p.Target.Provider, p.Target.Model, p.Stream), body)
		ok = err == nil
	}
	if !ok {
		w.Header().Set(CacheHeader, CacheBypass)
		return next.ServeHTTP(w, r)
	}
	var flight *cache.Flight
	if noCache {
		w.Header().Set(CacheHeader, CacheBypass)
	} else {
		ans, f, err := rc.Lookup(r.Context(), key, !noStore)
		if err != nil && r.Context().Err() != nil {
			return nil // the client went away while waiting; nobody to answer
		}
		if ans != nil {
			if px.ServerTiming {
				w.Header().Set("Server-Timing", proxy.HitServerTiming(info.Start))
			}
			serveHit(w, info, p, ans)
			return nil
		}
		flight = f
		w.Header().Set(CacheHeader, CacheMiss)
	}
	if noStore {
		return next.ServeHTTP(w, r) // never stored: nothing to capture
	}
	// Ends the flight sharing nothing if next panics or its answer is not
	// kept; after the Done below (or the capture giving up) it does
	// nothing.
	defer flight.Done(nil)
	cw := &cacheWriter{ResponseWriter: w, max: rc.MaxEntryBytes(), flight: flight}
	err := next.ServeHTTP(cw, r)
	ans := keepable(cw, info, p.Stream)
	if ans != nil {
		if info.ProviderName != p.Target.Provider || info.ResolvedModel != p.Target.Model {
			// Stored under what actually answered.
			key, _ = cache.KeyOf(keyRequest(rc, rt, info, info.ProviderName, info.ResolvedModel, p.Stream), body)
		}
		m := cache.Meta{Key: key, UserPath: info.UserPath, Provider: info.ProviderName, Model: info.ResolvedModel}
		if perr := rc.Put(m, ans); perr != nil {
			ans = nil // not stored; the waiting requests make their own calls
		}
	}
	flight.Done(ans)
	return err
}

// keyRequest is what the key of a request covers besides its body.
func keyRequest(rc *caddymodule.ResponseCache, rt *routes.Route, info *reqinfo.Info, provider, model string, stream bool) cache.Request {
	req := cache.Request{Endpoint: rt.Path, Provider: provider, Model: model, Stream: stream}
	if !rc.Global {
		req.UserPath = info.UserPath
		if req.UserPath == "" {
			req.UserPath = userpath.Root
		}
	}
	return req
}

// serveHit answers with a stored answer: its headers, status 200 and its
// body write by write, each flushed for a stream. The request is marked a
// cache hit with the stored usage, for the audit stage and so that no
// later stage counts it.
func serveHit(w http.ResponseWriter, info *reqinfo.Info, p *reqinfo.Plan, ans *cache.Answer) {
	info.CacheHit = true
	info.RequestedModel, info.ResolvedModel = p.Requested, p.Target.Model
	info.AliasUsed = p.Target.Alias
	info.ProviderName, info.ProviderType = p.Target.Provider, ans.ProviderType
	info.Stream = ans.Stream
	if ans.HasUsage {
		info.SetUsage(ans.Usage)
	}
	h := w.Header()
	for _, kh := range ans.Headers {
		h[kh.Name] = []string{kh.Value}
	}
	h[CacheHeader] = hitValue
	w.WriteHeader(http.StatusOK)
	if !ans.Stream {
		for _, c := range ans.Chunks {
			if _, err := w.Write(c); err != nil {
				return
			}
		}
		return
	}
	// A replayed stream is open until its last chunk is out: a client
	// that leaves before did not get the answer. A last chunk that its
	// write may send (proxy.SentByWrite) is out once written: a client
	// may leave on it before the flush that follows.
	info.AnswerOpen = true
	rc := http.NewResponseController(w)
	_ = rc.Flush()
	for i, c := range ans.Chunks {
		if _, err := w.Write(c); err != nil {
			return
		}
		if i == len(ans.Chunks)-1 && proxy.SentByWrite(len(c)) {
			info.AnswerOpen = false
		}
		if rc.Flush() != nil {
			return
		}
	}
	info.AnswerOpen = false
}

// hitValue is the header value of a hit, shared so a hit allocates none.
var hitValue = []string{CacheHit}

// keepable returns the answer cw captured when it may be stored and
// shared: a complete 200 from the first and only provider tried (never a
// failover answer), sent whole. A client that leaves once it has the
// whole answer (an agent closing the connection on a stream's closing
// event) does not keep it from being stored; one that leaves before
// (the answer still open) does. Otherwise nil.
func keepable(cw *cacheWriter, info *reqinfo.Info, stream bool) *cache.Answer {
	if cw.status != http.StatusOK || cw.dropped || info.AnswerOpen ||
		info.ErrorCode != "" || info.CacheHit || info.ProviderName == "" {
		return nil
	}
	attempts := info.Attempts()
	if len(attempts) != 1 || attempts[0].StatusCode != http.StatusOK || attempts[0].Err != "" {
		return nil
	}
	ans := &cache.Answer{Stream: info.Stream || stream, ProviderType: info.ProviderType, Chunks: cw.body()}
	ans.Usage, ans.HasUsage = info.Usage()
	h := cw.Header()
	for _, name := range keptHeaders {
		if v := h.Get(name); v != "" {
			ans.Headers = append(ans.Headers, cache.Header{Name: name, Value: v})
		}
	}
	return ans
}

// cacheControl reads the request's Cache-Control directives no-cache and
// no-store.
func cacheControl(h http.Header) (noCache, noStore bool) {
	for _, v := range h.Values("Cache-Control") {
		for _, d := range strings.Split(v, ",") {
			switch strings.ToLower(strings.TrimSpace(d)) {
			case "no-cache":
				noCache = true
			case "no-store":
				noStore = true
			}
		}
	}
	return noCache, noStore
}
