package apierr

import "github.com/tidwall/sjson"

// MessageBody returns, as bytes, the gateway error shape reduced to a
// type and a message: {"error":{"type":typ,"message":message}}, in that
// order. It is the body stored for a request that has no answer of its
// own, such as a batch result line the provider gave no response for;
// a response sends the whole error object (Write) instead. A string of
// plain printable ASCII is written as it is; one that needs any escape
// is escaped as encoding/json escapes it (HTML characters included).
func MessageBody(typ, message string) []byte {
	b, _ := sjson.SetBytes(nil, "error.type", typ)
	b, _ = sjson.SetBytes(b, "error.message", message)
	return b
}
