package handlers

import (
	"io"
	"net/http"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// trustedLength is the largest declared Content-Length a body buffer is
// sized by before any byte arrives; a longer body grows the buffer as it
// comes, so a client cannot make the gateway reserve memory it never
// sends.
const trustedLength = 1 << 20

// peekBody reads body up to max+1 bytes, so that a body longer than max
// shows as such, and returns what it read, a body that yields the whole
// original body to later readers (what was read, then the rest), and the
// first read error other than the end of the body. The buffer is sized by
// the declared length when that is at most max and trustedLength, so a
// body of the declared length is read without growing it and without a
// byte to spare (a large buffer one byte over a page size costs a page).
func peekBody(body io.ReadCloser, max int64, declared int64) ([]byte, io.ReadCloser, error) {
	size := int64(4096)
	if declared > 0 && declared <= min(max, trustedLength) {
		size = declared
	}
	buf := make([]byte, 0, size)
	lr := io.LimitReader(body, max+1)
	var err error
	for {
		if len(buf) == cap(buf) {
			// Full: a body of the declared length ends here, which a
			// one-byte read tells without growing the buffer by half.
			var probe [1]byte
			var n int
			if n, err = lr.Read(probe[:]); n == 0 && err != nil {
				break
			}
			buf = append(buf, probe[:n]...)
			continue
		}
		var n int
		n, err = lr.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err != nil {
			break
		}
	}
	if err == io.EOF {
		err = nil
	}
	return buf, &replayBody{head: buf, rest: body}, err
}

// replayBody yields the bytes already read, then the rest of the body.
type replayBody struct {
	head []byte
	rest io.ReadCloser
}

// Read implements io.Reader.
func (b *replayBody) Read(p []byte) (int, error) {
	if len(b.head) > 0 {
		n := copy(p, b.head)
		b.head = b.head[n:]
		return n, nil
	}
	return b.rest.Read(p)
}

// Close closes the original body.
func (b *replayBody) Close() error { return b.rest.Close() }

// requestTimedOut answers a request whose body did not arrive within the
// read_body_timeout (see Auth) while a stage read it: 408 request_timeout.
// The stage that meets the timeout answers at once, because the failed
// read also cancelled the request's context (net/http does so on any
// read error of the connection): a later stage would take the request
// for one whose client went away.
func requestTimedOut(w http.ResponseWriter, r *http.Request) error {
	apierr.WriteFor(w, r, apierr.RequestTimeout())
	return nil
}

// bodyTimedOut reports whether err, a plan's refusal, is the 408 of a body
// that did not arrive in time.
func bodyTimedOut(err error) bool {
	e, ok := err.(*apierr.Error)
	return ok && e.StatusCode == http.StatusRequestTimeout
}
