package redisstore

import (
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
	"github.com/modelgate/modelgate/internal/domain/catalog"
	"github.com/modelgate/modelgate/internal/domain/limits"
)

// BenchmarkAdmitReserving compares a budgeted request's admission and
// end through Redis, under a request window rule ("window": the release
// asks Redis nothing) or a concurrency rule ("slot": the release gives
// the slot back). "apart" reserves its worst-case cost, admits it,
// releases it and settles the reservation, each call a round trip (3 or
// 4); "along" carries the reservation along the admission and the
// settlement along the release (2 either way).
func BenchmarkAdmitReserving(b *testing.B) {
	for _, bc := range []struct {
		name   string
		along  bool
		period limits.Period
	}{{"window/apart", false, limits.PeriodMinute}, {"window/along", true, limits.PeriodMinute},
		{"slot/apart", false, limits.PeriodConcurrent}, {"slot/along", true, limits.PeriodConcurrent}} {
		along, period := bc.along, bc.period
		b.Run(bc.name, func(b *testing.B) {
			c, _, eng := alongEngine(b, limits.Rule{Scope: limits.ScopeUserPath, Subject: "/", Period: period, MaxRequests: 1 << 40})
			bs, err := budgets.New(budgets.Options{Spend: NewBudgets(c)})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bs.Put(budgets.Key{UserPath: "/team", Period: budgets.Daily}, 1e9, false); err != nil {
				b.Fatal(err)
			}
			amount := catalog.NanosOf(0.001)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				var (
					r   budgets.Reservation
					ok  bool
					adm limits.Admission
					rej *limits.Rejection
				)
				if call := bs.PrepareReserve("/team/app", amount, time.Now()); along && call != nil {
					al := limits.Along{Call: call}
					adm, rej = eng.AdmitUserPathAlong("/team/app", &al)
					r, ok, _, _ = bs.FinishReserve(call, al.Made)
				} else {
					if call != nil {
						r, ok, _, _ = bs.FinishReserve(call, false)
					}
					adm, rej = eng.AdmitUserPath("/team/app")
				}
				if !ok || rej != nil {
					b.Fatalf("refused: budget ok %v, rate limit %v", ok, rej)
				}
				if !along {
					adm.Done(0)
					r.Settle(0, time.Now())
					continue
				}
				settle := r.PrepareSettle(0, time.Now())
				end := limits.Along{Call: settle}
				adm.DoneAlong(0, &end)
				settle.Finish(end.Made)
			}
		})
	}
}
