package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// servers are the running processes and where they listen.
type servers struct {
	upstream, caddy *proc
	gateways        map[string]*proc  // gateway target -> its modelgate process
	urls            map[string]string // target -> base URL
	adminURLs       map[string]string // gateway target -> Caddy admin base URL
}

// all returns every server process.
func (s *servers) all() []*proc {
	out := []*proc{s.upstream, s.caddy}
	for _, t := range gatewayTargets {
		out = append(out, s.gateways[t])
	}
	return out
}

// proxy is the process that serves target, nil for direct.
func (s *servers) proxy(target string) *proc {
	if target == targetCaddy {
		return s.caddy
	}
	return s.gateways[target]
}

// childEnv is a minimal environment for the servers, so provider keys or
// feature switches in the operator's environment cannot change what is
// measured, and Caddy keeps its files inside the run's directory.
func childEnv(tmp string, extra ...string) []string {
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + tmp,
		"TMPDIR=" + tmp,
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "xdg-config"),
		"XDG_DATA_HOME=" + filepath.Join(tmp, "xdg-data"),
	}
	return append(env, extra...)
}

// startServers starts mockupstream, plain Caddy and the modelgate
// gateways and waits until each answers.
func startServers(ctx context.Context, ps *procs, b bins, tmp string, o options) (*servers, error) {
	s := &servers{gateways: map[string]*proc{}, urls: map[string]string{}, adminURLs: map[string]string{}}
	var err error
	s.upstream, err = ps.start(o.cpus, o.cpus.others, "mockupstream", b.mockupstream, tmp, []string{
		"-listen", "127.0.0.1:0", "-latency", "0s", "-chunk-delay", o.chunkDelay.String(), "-api-key", upstreamKey,
	}, childEnv(tmp))
	if err != nil {
		return nil, err
	}
	addr, err := waitListening(ctx, s.upstream, 15*time.Second)
	if err != nil {
		return nil, err
	}
	s.urls[targetDirect] = "http://" + addr
	upPort, err := portOf(addr)
	if err != nil {
		return nil, err
	}

	caddyPort, err := freePort()
	if err != nil {
		return nil, err
	}
	if s.caddy, err = startCaddy(ps, b, o.cpus, tmp, "caddy", plainCaddyfile(tmp, caddyPort, upPort), childEnv(tmp)); err != nil {
		return nil, err
	}
	s.urls[targetCaddy] = fmt.Sprintf("http://127.0.0.1:%d", caddyPort)
	if err := waitHTTP(ctx, s.caddy, s.urls[targetCaddy]+"/v1/models", upstreamKey, 30*time.Second); err != nil {
		return nil, err
	}

	for _, t := range gatewayTargets {
		port, err1 := freePort()
		adminPort, err2 := freePort()
		if err := errors.Join(err1, err2); err != nil {
			return nil, err
		}
		admin := fmt.Sprintf("127.0.0.1:%d", adminPort)
		env, storage := modelgateEnv, boltStorage(tmp, t)
		switch t {
		case targetBudget:
			env = budgetEnv
		case targetAlias:
			env = aliasEnv
		case targetCache:
			env = cacheEnv
		case targetPG:
			env, storage = sharedEnv(tmp, o.shared), sharedStorage(o.shared)
		}
		p, err := startCaddy(ps, b, o.cpus, tmp, t, modelgateCaddyfile(tmp, t, port, upPort, admin, storage), childEnv(tmp, env...))
		if err != nil {
			return nil, err
		}
		s.gateways[t] = p
		s.urls[t] = fmt.Sprintf("http://127.0.0.1:%d", port)
		s.adminURLs[t] = "http://" + admin
		if err := waitHTTP(ctx, p, s.urls[t]+"/health", "", 30*time.Second); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// startCaddy writes a Caddyfile and runs the modelgate binary on it.
func startCaddy(ps *procs, b bins, plan cpuPlan, tmp, name, caddyfile string, env []string) (*proc, error) {
	path := filepath.Join(tmp, name+".Caddyfile")
	if err := os.WriteFile(path, []byte(caddyfile), 0o644); err != nil {
		return nil, err
	}
	return ps.start(plan, plan.proxy, name, b.modelgate, tmp, []string{"run", "--config", path, "--adapter", "caddyfile"}, env)
}

func portOf(addr string) (int, error) {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return 0, fmt.Errorf("no port in %q", addr)
	}
	return strconv.Atoi(addr[i+1:])
}

// keyFor is the bearer key the load generator sends to a target: modelgate
// checks its master key; direct and caddy reach mockupstream, which checks
// the upstream key.
func keyFor(target string) string {
	if isGateway(target) {
		return masterKey
	}
	return upstreamKey
}

// rateLimitHeader shows that modelgate applied the seeded rate-limit rule.
const rateLimitHeader = "X-Ratelimit-Limit-Requests"

// probeTargets sends one small chat request to every target (which must
// answer 200; a gateway's answer also shows whether the seeded rate-limit
// rule applies), checks that the budget target enforces its budget, and
// sends one /v1/messages request to modelgate, whose answer says whether
// the messages workloads can run yet.
func probeTargets(ctx context.Context, s *servers, r *Report) (messagesServed bool, err error) {
	body := []byte(`{"model":"` + benchModel + `","max_tokens":8,"messages":[{"role":"user","content":"hello there"}]}`)
	for _, t := range allTargets {
		status, h, text, err := probe(ctx, s.urls[t]+"/v1/chat/completions", keyFor(t), body)
		if err != nil {
			return false, fmt.Errorf("probe %s: %w", t, err)
		}
		if status != 200 {
			return false, fmt.Errorf("probe %s: POST /v1/chat/completions answered %d: %s", t, status, text)
		}
		if !isGateway(t) {
			continue
		}
		limit := h.Get(rateLimitHeader)
		if t == targetModelgate {
			r.RateLimitHeader = limit
		}
		if limit == "" {
			r.Notes = append(r.Notes, t+" answered without "+rateLimitHeader+": the seeded rate-limit rule was not applied")
		}
	}
	if s.urls[targetBudget] != "" {
		if r.BudgetProbe, err = probeBudget(ctx, s.urls[targetBudget]); err != nil {
			return false, fmt.Errorf("probe %s budgets: %w", targetBudget, err)
		}
	}
	status, _, text, err := probe(ctx, s.urls[targetModelgate]+"/v1/messages", masterKey, body)
	if err != nil {
		return false, fmt.Errorf("probe modelgate /v1/messages: %w", err)
	}
	if status != 200 {
		r.Notes = append(r.Notes, fmt.Sprintf("/v1/messages not served yet (modelgate answered %d: %s); messages workloads skipped",
			status, strings.TrimSpace(text)))
		return false, nil
	}
	return true, nil
}

// probeBudget lists the gateway's budgets (GET /admin/budgets) and
// describes the one on "/", failing when there is none: without it the
// budget target would measure nothing.
func probeBudget(ctx context.Context, base string) (string, error) {
	b, err := getJSON(ctx, base+"/admin/budgets", masterKey)
	if err != nil {
		return "", err
	}
	return findRootBudget(b)
}

// findRootBudget describes the budget on user path "/" in a GET
// /admin/budgets answer.
func findRootBudget(body []byte) (string, error) {
	var list struct {
		Budgets []struct {
			UserPath string  `json:"user_path"`
			Period   string  `json:"period"`
			Amount   float64 `json:"amount"`
			Spent    float64 `json:"spent"`
			Source   string  `json:"source"`
		} `json:"budgets"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return "", fmt.Errorf("budget list: %w", err)
	}
	for _, e := range list.Budgets {
		if e.UserPath == "/" {
			return fmt.Sprintf("%s budget on / of %g (source %s, spent %g)", e.Period, e.Amount, e.Source, e.Spent), nil
		}
	}
	return "", fmt.Errorf("no budget on / among %d budgets", len(list.Budgets))
}
