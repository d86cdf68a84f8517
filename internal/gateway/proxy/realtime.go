package proxy

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/tidwall/gjson"
	"go.uber.org/zap"

	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
	"github.com/modelgate/modelgate/internal/gateway/providers"
	"github.com/modelgate/modelgate/internal/gateway/providers/translate"
	"github.com/modelgate/modelgate/internal/request/apierr"
	"github.com/modelgate/modelgate/internal/request/reqinfo"
)

// Default bounds of a realtime session.
const (
	// DefaultRealtimeIdle ends a session in which neither side sent a
	// message for this long.
	DefaultRealtimeIdle = 5 * time.Minute
	// DefaultRealtimeMax ends any session this long.
	DefaultRealtimeMax = 60 * time.Minute
)

// realtimeReadLimit bounds one WebSocket message either way (audio
// arrives base64-encoded in large events).
const realtimeReadLimit = 16 << 20

// RealtimeLimits bound realtime sessions; zero fields take the defaults.
type RealtimeLimits struct {
	// Idle ends a session, with close code 1000, once neither side has
	// sent a message for this long.
	Idle time.Duration
	// Max ends a session, with close code 1008, once it has lasted this
	// long.
	Max time.Duration
}

// BudgetChecker tells whether the spend budgets covering a user path
// still admit requests; the realtime relay asks after each response.
type BudgetChecker interface {
	Admits(userPath string) bool
}

// Close codes and reasons the relay ends sessions with.
const (
	reasonIdle   = "idle timeout"
	reasonMax    = "maximum session duration reached"
	reasonBudget = "budget exceeded"
)

// realtime serves GET /v1/realtime?model=: it resolves the model, dials
// the provider's realtime endpoint (a failure there is an ordinary HTTP
// error, the client not upgraded yet, after the failover route's targets
// were tried), upgrades the client and relays messages both ways until
// either side closes, the session is idle or too long, or a spent budget
// ends it. The whole session runs inside this
// call, so the stages around it (the concurrency slot, the audit entry)
// last as long as the session.
func (s *Service) realtime(w http.ResponseWriter, r *http.Request) {
	info := reqinfo.From(r.Context())
	if info == nil {
		info = reqinfo.New()
	}
	// The client's handshake is checked before anything else, so that a
	// request that cannot be upgraded never opens a provider session.
	if e := clientHandshakeError(w, r); e != nil {
		apierr.WriteFor(w, r, e)
		return
	}
	requested := r.URL.Query().Get("model")
	if requested == "" {
		apierr.WriteFor(w, r, apierr.InvalidRequest("model is required").WithParam("model").WithCode(apierr.CodeMissingParameter))
		return
	}
	// Routed as every model request is: through the virtual models, and
	// refused (403 model_access_denied) when an access policy keeps the
	// model from the caller. Recorded first, so a refusal still shows the
	// model asked for.
	info.RequestedModel = catalog.RecordedModelID(requested)
	if err := checkModelID(requested); err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	req := &request{requested: requested, info: info}
	plan := func(sub *request) (*call, error) {
		t, err := s.route(r.Context(), sub.info, sub.requested)
		if err != nil {
			return nil, err
		}
		return s.realtimeCall(info, t)
	}
	c, err := plan(req)
	if err != nil {
		apierr.WriteFor(w, r, err)
		return
	}
	info.Stream = true
	// A failover route applies as for the other model endpoints: the next
	// target is tried when this one is saturated or its handshake fails
	// in a way failover covers, before the client is upgraded.
	var up *websocket.Conn
	var adm limits.Admission
	var started time.Time
	s.failover(w, r, req, c, s.failoverTargets(req, c), plan, func(fc *call, last bool) (failure error) {
		up, adm, started, failure = s.dialRealtimeTarget(w, r, fc, last)
		c = fc
		return failure
	})
	if up == nil {
		return // answered
	}
	defer func() { adm.Done(usedTokens(info)) }()
	p, model := c.provider, c.model
	defer up.CloseNow()
	up.SetReadLimit(realtimeReadLimit)
	var protocols []string
	if sp := up.Subprotocol(); sp != "" {
		protocols = []string{sp}
	}
	cl, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: protocols})
	if err != nil { // Accept answered the client
		up.Close(websocket.StatusGoingAway, "the client handshake failed")
		info.AddAttempt(reqinfo.Attempt{Provider: p.Name(), Model: model, StatusCode: http.StatusSwitchingProtocols,
			StartedAt: started, Duration: time.Since(started)})
		return
	}
	defer cl.CloseNow()
	cl.SetReadLimit(realtimeReadLimit)
	rl := &relay{info: info, client: cl, upstream: up, budgets: s.Budgets, limits: s.Realtime, redact: s.Upstreams.redact,
		fault: func(f catalog.UsageFault) { s.usageFault(p, model, f) }}
	reason := rl.run()
	info.AddAttempt(reqinfo.Attempt{Provider: p.Name(), Model: model, StatusCode: http.StatusSwitchingProtocols,
		StartedAt: started, Duration: time.Since(started)})
	if reason != "" {
		info.ErrorType, info.ErrorMessage = "session_limit", "the gateway ended the session: "+reason
		info.ErrorCode = strings.ReplaceAll(reason, " ", "_")
	}
}

// realtimeCall is the call of a realtime session routed to t, or the
// refusal of a provider without a realtime API, which names the
// configured providers that have one.
func (s *Service) realtimeCall(info *reqinfo.Info, t routed) (*call, error) {
	p := t.provider
	if !hasRealtime(p) {
		msg := "provider " + p.Name() + " (" + p.Type() + ") has no realtime API"
		var with []string
		for _, other := range s.Registry.Providers() {
			if hasRealtime(other) {
				with = append(with, other.Name()+" ("+other.Type()+")")
			}
		}
		if len(with) > 0 {
			msg += "; these configured providers have one: " + strings.Join(with, ", ")
		} else {
			msg += ", nor does any configured provider"
		}
		return nil, apierr.InvalidRequest(msg).WithParam("model").WithCode("unsupported_endpoint")
	}
	return &call{info: info, provider: p, model: t.model}, nil
}

// hasRealtime reports whether p can open realtime sessions.
func hasRealtime(p providers.Provider) bool {
	_, ok := p.(providers.RealtimeDialer)
	return ok && p.Supports(providers.EndpointRealtime)
}

// dialRealtimeTarget checks c's budget and provider and model limits and
// dials its provider's realtime endpoint. On success it returns the
// upstream connection, the admission to release when the session ends
// and when the dial began. When last is false and the target is
// saturated, over budget, unreachable or answers 5xx, 429 or a redirect,
// it writes nothing and returns the error the client would get, for the
// next target; otherwise a failure is answered here and failure is nil.
func (s *Service) dialRealtimeTarget(w http.ResponseWriter, r *http.Request, c *call, last bool) (
	up *websocket.Conn, adm limits.Admission, started time.Time, failure error) {
	info, p, model := c.info, c.provider, c.model
	info.ResolvedModel = model
	info.ProviderName, info.ProviderType = p.Name(), p.Type()
	if e := overBudget(c); e != nil {
		return nil, adm, started, c.notCalled(w, r, apierr.From(e), "budget exceeded", last)
	}
	adm, rej := s.admit(c)
	if rej != nil {
		return nil, adm, started, c.notCalled(w, r, targetRejected(info, p.Name(), rej), rej.Reason, last)
	}
	started = time.Now()
	up, resp, err := p.(providers.RealtimeDialer).DialRealtime(r.Context(), model, upstreamProtocols(r))
	if err == nil {
		return up, adm, started, nil
	}
	adm.Done(0)
	// The attempt, like the client, gets the gateway's words; the
	// detail goes to the log only.
	at := reqinfo.Attempt{Provider: p.Name(), ProviderType: p.Type(), Model: model, StartedAt: started, Duration: time.Since(started)}
	var e *apierr.Error
	switch {
	case r.Context().Err() != nil:
		at.Err = clientGone
	case resp != nil && resp.StatusCode >= 400:
		at.StatusCode = resp.StatusCode
		e = upstreamError(p.Name(), resp, s.Upstreams)
	case resp != nil && providers.IsRedirect(resp.StatusCode):
		// Never followed (providers.New).
		at.StatusCode = resp.StatusCode
		s.logRedirect(p.Name(), resp)
		e = apierr.UpstreamRedirect(p.Name(), resp.StatusCode)
	default:
		s.logger().Warn("realtime upstream dial failed", zap.String("provider", p.Name()), zap.Error(err))
		e = transportError(p.Name(), err)
	}
	if e != nil {
		failedWith(&at, e)
	}
	info.AddAttempt(at)
	if e == nil {
		return nil, adm, started, nil // the client went away; nobody to answer
	}
	if !last && (at.StatusCode == 0 || failsOver(at.StatusCode)) {
		return nil, adm, started, e
	}
	apierr.WriteFor(w, r, e)
	return nil, adm, started, nil
}

// upstreamProtocols are the WebSocket subprotocols the client offered,
// but for the ones that carry a credential (the gateway's key is not the
// provider's).
func upstreamProtocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			p = strings.TrimSpace(p)
			if p != "" && !strings.HasPrefix(p, "openai-insecure-api-key") {
				out = append(out, p)
			}
		}
	}
	return out
}

// relay is one realtime session between a client and an upstream.
type relay struct {
	info             *reqinfo.Info
	client, upstream *websocket.Conn
	budgets          BudgetChecker
	limits           RealtimeLimits
	// redact removes provider credentials from a close reason the
	// upstream gives before the client gets it; nil passes it unchanged.
	redact func(string) string
	// fault logs and counts a fault of a response's usage
	// (catalog.CheckUsage).
	fault func(catalog.UsageFault)

	mu    sync.Mutex
	usage catalog.Usage
	seen  bool
	last  time.Time
}

// end is why a session ended: the side whose read failed, its close
// status and reason, or the gateway's own reason.
type end struct {
	fromClient bool
	status     websocket.StatusCode
	text       string // the reason the closing side gave
	reason     string // the gateway's reason, "" when a side closed
	code       websocket.StatusCode
}

// closedBy returns how a read or write that failed with err ended: the
// close status and the reason the peer gave.
func closedBy(fromClient bool, err error) end {
	e := end{fromClient: fromClient, status: websocket.CloseStatus(err)}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		e.text = ce.Reason
	}
	return e
}

// run relays until the session ends and returns the gateway's reason for
// ending it, "" when a side closed.
func (rl *relay) run() string {
	idle, max := rl.limits.Idle, rl.limits.Max
	if idle <= 0 {
		idle = DefaultRealtimeIdle
	}
	if max <= 0 {
		max = DefaultRealtimeMax
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rl.touch()
	ends := make(chan end, 4)
	go rl.pump(ctx, rl.client, rl.upstream, true, ends)
	go rl.pump(ctx, rl.upstream, rl.client, false, ends)
	deadline := time.NewTimer(max)
	defer deadline.Stop()
	tick := time.NewTicker(min(idle/4+time.Millisecond, time.Second))
	defer tick.Stop()
	var e end
wait:
	for {
		select {
		case e = <-ends:
			break wait
		case <-deadline.C:
			e = end{reason: reasonMax, code: websocket.StatusPolicyViolation}
			break wait
		case <-tick.C:
			rl.mu.Lock()
			quiet := time.Since(rl.last)
			rl.mu.Unlock()
			if quiet >= idle {
				e = end{reason: reasonIdle, code: websocket.StatusNormalClosure}
				break wait
			}
		}
	}
	switch {
	case e.reason != "":
		closeBoth(rl.client, rl.upstream, e.code, e.reason)
	case e.fromClient:
		_ = rl.upstream.Close(closeCode(e.status), e.text)
	default:
		code := closeCode(e.status)
		if e.status == -1 {
			code = websocket.StatusGoingAway
		}
		text := e.text
		if rl.redact != nil {
			text = rl.redact(text)
		}
		_ = rl.client.Close(code, text)
	}
	return e.reason
}

// closeCode is the code to close the other side with when one side ended
// with status (-1: the connection dropped without a close frame).
func closeCode(status websocket.StatusCode) websocket.StatusCode {
	switch status {
	case -1, websocket.StatusNoStatusRcvd, websocket.StatusAbnormalClosure:
		return websocket.StatusNormalClosure
	}
	return status
}

// closeBoth closes both sides at once with code and reason.
func closeBoth(a, b *websocket.Conn, code websocket.StatusCode, reason string) {
	var wg sync.WaitGroup
	for _, c := range []*websocket.Conn{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = c.Close(code, reason)
		}()
	}
	wg.Wait()
}

// touch records activity now.
func (rl *relay) touch() {
	rl.mu.Lock()
	rl.last = time.Now()
	rl.mu.Unlock()
}

// pump copies messages from src to dst until either fails, then reports
// how src ended. Upstream messages are read for usage and budgets.
func (rl *relay) pump(ctx context.Context, src, dst *websocket.Conn, fromClient bool, ends chan<- end) {
	for {
		typ, msg, err := src.Read(ctx)
		if err != nil {
			ends <- closedBy(fromClient, err)
			return
		}
		rl.touch()
		if err := dst.Write(ctx, typ, msg); err != nil {
			ends <- closedBy(!fromClient, err)
			return
		}
		if !fromClient && typ == websocket.MessageText && rl.responseDone(msg) {
			ends <- end{reason: reasonBudget, code: websocket.StatusPolicyViolation}
			return
		}
	}
}

// responseDone adds the usage of a response.done event to the session's
// and reports whether a spent budget now ends the session. Each response
// is an answer of its own, its usage checked as catalog.CheckUsage does: one
// whose usage is refused adds nothing to the session's.
func (rl *relay) responseDone(msg []byte) (overBudget bool) {
	if gjson.GetBytes(msg, "type").Str != "response.done" {
		return false
	}
	if add, ok := translate.RealtimeUsage(gjson.GetBytes(msg, "response.usage")); ok {
		add, fault, ok := catalog.CheckUsage(add)
		if fault != catalog.UsageFaultNone && rl.fault != nil {
			rl.fault(fault)
		}
		if ok {
			rl.mu.Lock()
			rl.usage, rl.seen = rl.usage.Add(add), true
			total := rl.usage
			rl.mu.Unlock()
			rl.info.SetUsage(total)
		}
	}
	return rl.budgets != nil && !rl.budgets.Admits(rl.info.UserPath)
}
