package handlers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/domain/limits"
)

// downShared is a shared counter store that never answers.
type downShared struct{}

var errNoRedis = errors.New("connection refused")

func (downShared) Admit(context.Context, *limits.SharedAdmission) error { return errNoRedis }
func (downShared) Peek(context.Context, *limits.SharedAdmission) error  { return errNoRedis }
func (downShared) Release(context.Context, *limits.SharedRelease) error { return errNoRedis }
func (downShared) Reset(context.Context, []limits.Key) error            { return errNoRedis }
func (downShared) Ping(context.Context) error                           { return errNoRedis }
func (downShared) Close() error                                         { return nil }

// Fail-closed without the shared store, a request is answered 503 in the
// gateway error shape, never reaching next; fail-open it is served.
func TestRateLimitUnavailableFailClosed(t *testing.T) {
	for _, closed := range []bool{true, false} {
		e, err := limits.New(limits.Options{Shared: downShared{}, SharedFailClosed: closed})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if err := e.SetConfigRules([]limits.Rule{{Scope: limits.ScopeUserPath, Subject: "/", Period: limits.PeriodMinute, MaxRequests: 5}}); err != nil {
			t.Fatal(err)
		}
		called := false
		rec, _ := rlServe(e, "POST", "/v1/chat/completions", "/team", func(w http.ResponseWriter, r *http.Request) error {
			called = true
			return ok200(w, r)
		})
		if !closed {
			if rec.Code != 200 || !called {
				t.Fatalf("fail-open: %d called=%v", rec.Code, called)
			}
			continue
		}
		if rec.Code != http.StatusServiceUnavailable || called {
			t.Fatalf("fail-closed: %d called=%v", rec.Code, called)
		}
		if rec.Header().Get("Retry-After") != "1" || !strings.Contains(rec.Body.String(), `"code":"rate_limits_unavailable"`) {
			t.Fatalf("headers %v body %s", rec.Header(), rec.Body)
		}
	}
}
