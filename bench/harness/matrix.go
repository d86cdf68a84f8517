package main

import "strconv"

// Targets, in the order each cell runs them.
const (
	targetDirect    = "direct"    // the client straight to mockupstream: the floor
	targetCaddy     = "caddy"     // plain Caddy reverse_proxy to mockupstream
	targetModelgate = "modelgate" // the full modelgate chain
	// targetBudget is modelgate with one budget on "/" whose amount is
	// never reached, so the budget check runs on every request.
	targetBudget = "modelgate-budget"
	// targetAlias is modelgate whose model name is a virtual model with
	// two targets, both the upstream's model: every request resolves
	// through the alias (weighted round robin) before the proxy.
	targetAlias = "modelgate-alias"
	// targetCache is modelgate with the response cache on. The load
	// generator repeats one request, so all but the first are hits.
	targetCache = "modelgate-cache"
	// targetPG is modelgate's configuration on PostgreSQL and Redis
	// (`storage postgres`, `redis`) instead of the bbolt file: keys, audit
	// and usage in PostgreSQL, rate-limit windows and the budget check's
	// spend in Redis, as when several processes run as one gateway.
	targetPG = "modelgate-pg"
)

// gatewayTargets are the targets served by a modelgate process, each with
// its own store, admin endpoint and records.
var gatewayTargets = []string{targetModelgate, targetBudget, targetAlias, targetCache, targetPG}

// isGateway reports whether target is served by modelgate.
func isGateway(target string) bool {
	return target == targetModelgate || target == targetBudget || target == targetAlias || target == targetCache || target == targetPG
}

// workload is one kind of traffic.
type workload struct {
	// Name labels the workload in the table and the JSON.
	Name string
	// Shape is the loadgen -shape: chat or messages.
	Shape string
	// Stream asks for streamed answers.
	Stream bool
	// Targets are the targets that serve this workload.
	Targets []string
	// Reference names the workload whose direct and caddy cells this one's
	// modelgate cells are compared with (itself when empty): mockupstream
	// has no /v1/messages, so messages traffic is set against the chat
	// figures of the floor.
	Reference string
	// AllocBench is the proxy package benchmark that measures this
	// workload's in-process path; tried with a "/<size>" suffix first.
	AllocBench string
}

// ref is the workload name whose direct and caddy figures w is compared with.
func (w workload) ref() string {
	if w.Reference != "" {
		return w.Reference
	}
	return w.Name
}

// workloads are every workload the harness runs.
var workloads = []workload{
	{Name: "chat", Shape: "chat", Targets: allTargets, AllocBench: "BenchmarkProxyChat"},
	{Name: "chat-stream", Shape: "chat", Stream: true, Targets: allTargets, AllocBench: "BenchmarkProxyStream"},
	{Name: "messages", Shape: "messages", Targets: gatewayOnly, Reference: "chat", AllocBench: "BenchmarkProxyMessages"},
	{Name: "messages-stream", Shape: "messages", Stream: true, Targets: gatewayOnly, Reference: "chat-stream", AllocBench: "BenchmarkProxyMessagesStream"},
	// chat-cached: the same repeated chat request, uncached (modelgate)
	// and answered by the response cache (modelgate-cache).
	{Name: "chat-cached", Shape: "chat", Targets: []string{targetModelgate, targetCache}, Reference: "chat"},
}

var (
	allTargets  = []string{targetDirect, targetCaddy, targetModelgate, targetBudget, targetAlias, targetPG}
	gatewayOnly = []string{targetModelgate}
)

// cellKey identifies one measurement.
type cellKey struct {
	Workload    string `json:"workload"`
	Target      string `json:"target"`
	Concurrency int    `json:"concurrency"`
	BodySize    int    `json:"body_size"`
}

// sizeName renders a body size the way the proxy benchmarks name theirs.
func sizeName(n int) string {
	if n >= 1<<10 && n%(1<<10) == 0 {
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}
