package reqinfo

import "github.com/modelgate/modelgate/internal/request/reqbody"

// Body is a request body read whole by an earlier stage, with one scan of
// its top level, so that later stages neither read nor scan it again.
type Body struct {
	// Bytes is the body as the client sent it. Stages must not modify it:
	// the audit record keeps it. A stage that edits the body in place
	// works on a copy.
	Bytes []byte
	// Fields are the members reqbody.Scan found; valid when ScanErr is nil.
	Fields reqbody.Fields
	// ScanErr is reqbody.Scan's refusal of the body (not a JSON object, a
	// repeated member), for the stage that answers it.
	ScanErr error
	// Editable reports that no stage but the proxy holds Bytes (the
	// proxy read it itself, as the stage that answers), so the proxy may
	// edit it in place.
	Editable bool
}

// SetBody records body, read whole, and scans its top level once.
func (i *Info) SetBody(body []byte) {
	i.body.Bytes = body
	i.body.Fields, i.body.ScanErr = reqbody.Scan(body)
	i.body.Editable = false
	i.hasBody = true
}

// Body returns the body an earlier stage read, or nil when none did (the
// stage then reads the request's body itself).
func (i *Info) Body() *Body {
	if !i.hasBody {
		return nil
	}
	return &i.body
}
