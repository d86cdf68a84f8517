// Package redisstore keeps the state that several gateway processes must
// share second by second in Redis: rate-limit windows and concurrency
// leases, budget spend, response-cache entries, session pins, and the
// fan-out of live-log events and admin changes between processes.
//
// Every key the gateway writes starts with the client's prefix
// ("modelgate:" by default), so one Redis can serve several gateways or
// tests side by side.
package redisstore
