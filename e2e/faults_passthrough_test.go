package e2e

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fltRaw sends a passthrough request as curl would, on a connection of its
// own, and returns the raw bytes the gateway sent back until it closed the
// connection, and the read error that ended them (nil for a clean close).
func fltRaw(t *testing.T, g *gateway, path, body, requestID string) (string, error) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\n"+
		"X-Request-Id: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		path, strings.TrimPrefix(g.URL, "http://"), fltMasterKey, requestID, len(body), body)
	b, err := io.ReadAll(conn)
	return string(b), err
}

// TestFaultInjectionPassthrough runs the upstream faults through
// passthrough (/p/fo/chat/completions and /p/fa/messages, streamed): a
// stream the upstream cuts, resets or leaves silent reaches the client as
// an aborted answer (Go's client reads unexpected EOF; a raw client never
// sees the chunked stream's last chunk), with its whole events only,
// never the partial one; a redirect is relayed as it came, with the key
// removed from its headers, and never followed; a 429 without Retry-After
// gets one from its reset headers; a key in an error answer's headers is
// removed. Every request leaves its slots free and one audit entry at
// most (exactly one once the audit stage finishes entries on aborts).
func TestFaultInjectionPassthrough(t *testing.T) {
	fltClearEnv(t)
	t.Setenv("SET_RATE_LIMIT_FAULTS", "concurrent=1")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_FO", "concurrent=1")
	t.Setenv("SET_PROVIDER_RATE_LIMIT_FA", "concurrent=1")
	t.Setenv("ENABLED_PASSTHROUGH_PROVIDERS", "fo,fa")
	up := fltUpstream(t)
	provider := func(name, typ, key string) string {
		return "provider " + name + " {\n type " + typ + "\n api_key " + key + "\n base_url " + up.URL + "/v1\n models fault-ok" +
			"\n models_mode allowlist\n timeout 1s\n read_idle_timeout 300ms\n max_response_body 1MiB\n max_stream_event 64KiB\n}\n"
	}
	g := startGateway(t, "master_key "+fltMasterKey+"\n"+provider("fo", "openai", fltOpenAIKey)+provider("fa", "anthropic", fltAnthropicKey))
	noFollow := &http.Client{Timeout: 20 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var ids []string
	for _, sh := range []fltShape{fltShapes[0], fltShapes[2]} {
		path := "/p/" + sh.provider + sh.path[len("/v1"):]
		body := func(model string) string { return strings.Replace(sh.body(model, true), sh.provider+"/", "", 1) }
		for _, fault := range []string{"fault-truncated", "fault-reset", "fault-silence"} {
			t.Run(sh.name+"/"+fault, func(t *testing.T) {
				// As Go's client sees it.
				a := fltPost(t, g, path, body(fault))
				fltCheckClean(t, a)
				if a.status != 200 || a.readErr == nil {
					t.Errorf("a broken stream reached the client as complete: %d %v %.300q", a.status, a.readErr, a.body)
				}
				if a.body != fltFirstEvent(sh.stream) {
					t.Errorf("relayed %q, want the whole first event only", a.body)
				}
				fltCheckReleased(t, g, sh)

				// As curl sees it: the connection ends without the
				// chunked stream's last chunk, after the whole event.
				id := "pt-" + sh.provider + "-" + fault
				ids = append(ids, id)
				raw, _ := fltRaw(t, g, path, body(fault), id)
				if !strings.HasPrefix(raw, "HTTP/1.1 200") || strings.HasSuffix(raw, "0\r\n\r\n") ||
					strings.Contains(raw, "partial") || strings.Contains(raw, `{"pa`) {
					t.Errorf("raw answer %.600q", raw)
				}
				fltCheckReleased(t, g, sh)
			})
		}
		t.Run(sh.name+"/fault-ok", func(t *testing.T) {
			a := fltPost(t, g, path, body("fault-ok"))
			if _, want := fltOK(sh.stream, true); a.status != 200 || a.readErr != nil || a.body != want {
				t.Errorf("%d %v %.300q", a.status, a.readErr, a.body)
			}
		})
		t.Run(sh.name+"/fault-redirect", func(t *testing.T) {
			req, _ := http.NewRequest("POST", g.URL+path, strings.NewReader(body("fault-redirect")))
			req.Header.Set("Authorization", "Bearer "+fltMasterKey)
			req.Header.Set("Content-Type", "application/json")
			resp, err := noFollow.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			a := fltAnswer{status: resp.StatusCode, header: resp.Header, body: string(b)}
			fltCheckClean(t, a)
			want := "[REDACTED]" // both held the key
			if a.status != http.StatusTemporaryRedirect || a.header.Get("Location") != want || a.header.Get("X-Debug-Location") != want {
				t.Errorf("%d %v", a.status, a.header)
			}
			if n := fltElsewhere().hits.Load(); n != 0 {
				t.Errorf("the redirect was followed %d times", n)
			}
			fltCheckReleased(t, g, sh)
		})
		t.Run(sh.name+"/fault-429bare", func(t *testing.T) {
			a := fltPost(t, g, path, body("fault-429bare"))
			if a.status != 429 || a.header.Get("Retry-After") != "360" {
				t.Errorf("%d Retry-After %q", a.status, a.header.Get("Retry-After"))
			}
		})
		t.Run(sh.name+"/fault-headerkey", func(t *testing.T) {
			a := fltPost(t, g, path, body("fault-headerkey"))
			fltCheckClean(t, a)
			if a.status != 400 || a.header.Get("X-Debug-Key") != "[REDACTED]" {
				t.Errorf("%d %v", a.status, a.header)
			}
		})
	}
	t.Run("audit entries", func(t *testing.T) {
		entries, _ := auditRecords(t)
		missing := 0
		for _, id := range ids {
			switch n := len(entries[id]); {
			case n == 0:
				missing++
			case n > 1:
				t.Errorf("aborted passthrough %s left %d audit entries, want 1", id, n)
			default:
				e, code := entries[id][0], ""
				if e.Data != nil {
					code = e.Data.ErrorCode
				}
				if e.StatusCode < 500 || code == "" {
					t.Errorf("aborted passthrough %s recorded as %d %q, want a 5xx with its error code", id, e.StatusCode, code)
				}
			}
		}
		if missing > 0 {
			t.Errorf("%d of %d aborted passthrough calls left no audit entry", missing, len(ids))
		}
	})
}
