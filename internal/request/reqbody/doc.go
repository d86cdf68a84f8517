// Package reqbody reads a JSON request body the way the gateway needs it:
// one pass over the top level that finds the members the gateway acts on
// (model, stream, ...) and the members it records (temperature, the
// conversation, session hints), without parsing or copying the nested
// values. The stages that need a body's fields (audit, proxy) share one
// scan of one buffer.
package reqbody
