package providers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// recordingConn is a net.Conn that keeps what is written to it, one entry
// per Write call.
type recordingConn struct {
	net.Conn
	writes [][]byte
}

func (c *recordingConn) Write(p []byte) (int, error) {
	c.writes = append(c.writes, bytes.Clone(p))
	return len(p), nil
}

func (c *recordingConn) sent() []byte { return bytes.Join(c.writes, nil) }

// TestUpstreamConnReadFrom: a body of known length held in memory is
// written by its own WriteTo (a bytes.Reader in one write call), never
// beyond the limit; other readers are copied.
func TestUpstreamConnReadFrom(t *testing.T) {
	body := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB

	rc := &recordingConn{}
	c := &upstreamConn{Conn: rc}
	n, err := c.ReadFrom(&io.LimitedReader{R: io.NopCloser(bytes.NewReader(body)), N: int64(len(body))})
	if err != nil || n != int64(len(body)) || len(rc.writes) != 1 || !bytes.Equal(rc.sent(), body) {
		t.Fatalf("bytes.Reader: n %d, err %v, %d writes", n, err, len(rc.writes))
	}

	rc = &recordingConn{}
	c = &upstreamConn{Conn: rc}
	parts := [][]byte{body[:10], []byte(`"alias"`), body[10:]}
	pb := newPartsBody(parts)
	lr := &io.LimitedReader{R: pb, N: int64(pb.Len())}
	if n, err := c.ReadFrom(lr); err != nil || n != int64(len(body)+7) || lr.N != 0 || pb.Len() != 0 {
		t.Fatalf("parts: n %d, err %v, left %d/%d", n, err, lr.N, pb.Len())
	}
	if want := bytes.Join(parts, nil); !bytes.Equal(rc.sent(), want) {
		t.Fatal("parts: sent bytes differ")
	}

	// Longer than its limit: the limit is written, then an error.
	rc = &recordingConn{}
	c = &upstreamConn{Conn: rc}
	n, err = c.ReadFrom(&io.LimitedReader{R: io.NopCloser(bytes.NewReader(body)), N: 100})
	if n != 100 || !errors.Is(err, errBodyOverLength) || !bytes.Equal(rc.sent(), body[:100]) {
		t.Fatalf("over length: n %d, err %v, sent %d bytes", n, err, len(rc.sent()))
	}
	rc = &recordingConn{}
	c = &upstreamConn{Conn: rc}
	pb = newPartsBody(parts)
	n, err = c.ReadFrom(&io.LimitedReader{R: pb, N: 5}) // copied up to the limit, as net/http would
	if n != 5 || err != nil || !bytes.Equal(rc.sent(), body[:5]) {
		t.Fatalf("parts over length: n %d, err %v, sent %q", n, err, rc.sent())
	}

	// A reader that is not in memory is copied.
	rc = &recordingConn{}
	c = &upstreamConn{Conn: rc}
	if n, err := c.ReadFrom(io.MultiReader(bytes.NewReader(body[:5]), bytes.NewReader(body[5:9]))); err != nil || n != 9 || !bytes.Equal(rc.sent(), body[:9]) {
		t.Fatalf("copied: n %d, err %v, sent %q", n, err, rc.sent())
	}
}

// TestDialUpstreamSendsBodies: requests through a transport dialled with
// DialUpstream reach the upstream byte for byte, one part or several,
// small or large, and again when the body is given anew by GetBody (as
// the transport does to send a request once more).
func TestDialUpstreamSendsBodies(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil || int64(len(b)) != r.ContentLength {
			http.Error(w, fmt.Sprintf("read %d of %d: %v", len(b), r.ContentLength, err), 400)
			return
		}
		fmt.Fprintf(w, "%x", sha256.Sum256(b))
	}))
	defer srv.Close()
	tr := &http.Transport{DialContext: DialUpstream(&net.Dialer{})}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	big := bytes.Repeat([]byte("x"), 200<<10)
	for name, parts := range map[string][][]byte{
		"small":       {[]byte(`{"model":"m"}`)},
		"large":       {big},
		"parts":       {[]byte(`{"model":"`), []byte("alias"), []byte(`"}`)},
		"large parts": {big[:1000], []byte("y"), big[1000:]},
	} {
		// The second call reuses the kept-alive connection; the third
		// sends the body GetBody gives.
		for i := range 3 {
			var resp *http.Response
			var err error
			if i < 2 {
				resp, err = postJSONParts(context.Background(), client, srv.URL, parts, func(http.Header) {})
			} else {
				resp, err = sendAgain(client, srv.URL, parts)
			}
			if err != nil {
				t.Fatalf("%s %d: %v", name, i, err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if want := fmt.Sprintf("%x", sha256.Sum256(bytes.Join(parts, nil))); resp.StatusCode != 200 || string(got) != want {
				t.Fatalf("%s %d: status %d, %s", name, i, resp.StatusCode, got)
			}
		}
	}
}

// sendAgain sends the request postJSONParts would send, its body taken
// from GetBody.
func sendAgain(client *http.Client, url string, parts [][]byte) (*http.Response, error) {
	var req *http.Request
	var err error
	if len(parts) == 1 {
		req, err = http.NewRequest(http.MethodPost, url, bytes.NewReader(parts[0]))
	} else {
		req, err = partsRequest(context.Background(), url, parts, func(http.Header) {})
	}
	if err != nil {
		return nil, err
	}
	if req.Body, err = req.GetBody(); err != nil {
		return nil, err
	}
	return client.Do(req)
}

// BenchmarkPostJSON64KiB sends 64 KiB bodies to a loopback upstream
// through transports dialled with and without DialUpstream; B/op shows
// the copy buffer the plain connection allocates for every request.
func BenchmarkPostJSON64KiB(b *testing.B) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	defer srv.Close()
	body := bytes.Repeat([]byte("x"), 64<<10)
	for _, c := range []struct {
		name string
		dial func(context.Context, string, string) (net.Conn, error)
	}{{"plain", (&net.Dialer{}).DialContext}, {"dial-upstream", DialUpstream(&net.Dialer{})}} {
		b.Run(c.name, func(b *testing.B) {
			tr := &http.Transport{DialContext: c.dial}
			defer tr.CloseIdleConnections()
			client := &http.Client{Transport: tr}
			b.ReportAllocs()
			for b.Loop() {
				resp, err := postJSON(context.Background(), client, srv.URL, body, func(http.Header) {})
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
}
