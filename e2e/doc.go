// Package e2e holds end-to-end tests: they start the real Caddy server
// in-process from a Caddyfile, with every Modelgate module, against fake
// upstreams that replay recorded provider responses, and talk to it with
// official SDKs and plain HTTP. Tests that need several gateway processes
// run this test binary again as the modelgate command (see TestMain).
package e2e
