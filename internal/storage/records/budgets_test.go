package records

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/domain/budgets"
)

func TestBudgetGolden(t *testing.T) {
	p600, err := budgets.PeriodOfSeconds(600)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncodeBudget(budgets.Budget{UserPath: "/team", Period: budgets.Daily, Amount: 12.5, PerChild: true,
		Source: "manual", CreatedAt: at, UpdatedAt: at.Add(time.Hour)})
	golden(t, b, err, `{"user_path":"/team","period":"daily","period_seconds":86400,"amount":12.5,"per_child":true,"created_at":"2024-05-06T07:08:09.123456789Z","updated_at":"2024-05-06T08:08:09.123456789Z"}`)
	b, err = EncodeBudget(budgets.Budget{UserPath: "/x", Period: p600, Amount: 1, CreatedAt: at, UpdatedAt: at})
	golden(t, b, err, `{"user_path":"/x","period":"600","period_seconds":600,"amount":1,"per_child":false,"created_at":"2024-05-06T07:08:09.123456789Z","updated_at":"2024-05-06T07:08:09.123456789Z"}`)
	b, err = EncodeReset(budgets.Key{UserPath: "/team", Period: budgets.Daily}, at)
	golden(t, b, err, `{"user_path":"/team","period":"daily","period_seconds":86400,"at":"2024-05-06T07:08:09.123456789Z"}`)
	// A reset time in another zone is stored in UTC.
	b, err = EncodeReset(budgets.Key{UserPath: "/x", Period: p600}, at.In(time.FixedZone("X", 3600)))
	golden(t, b, err, `{"user_path":"/x","period":"600","period_seconds":600,"at":"2024-05-06T07:08:09.123456789Z"}`)
	b, err = EncodeSettings(budgets.Settings{DailyResetHour: 3, WeeklyResetWeekday: 0, MonthlyResetDay: 28})
	golden(t, b, err, `{"daily_reset_hour":3,"weekly_reset_weekday":0,"monthly_reset_day":28}`)
}

func TestBudgetRoundTrip(t *testing.T) {
	in := budgets.Budget{UserPath: "/a", Period: budgets.Daily, Amount: 3, PerChild: true,
		Source: budgets.SourceManual, CreatedAt: at, UpdatedAt: at}
	b, err := EncodeBudget(in)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := DecodeBudget("daily/a", b); err != nil || !reflect.DeepEqual(out, in) {
		t.Fatalf("got %+v, %v; want %+v", out, err, in)
	}
	k := budgets.Key{UserPath: "/a", Period: budgets.Daily}
	if b, err = EncodeReset(k, at); err != nil {
		t.Fatal(err)
	}
	if gk, gt, err := DecodeReset("daily/a", b); err != nil || gk != k || !gt.Equal(at) {
		t.Fatalf("reset read as %+v %v, %v", gk, gt, err)
	}
	s := budgets.Settings{DailyResetHour: 23, WeeklyResetWeekday: 6, MonthlyResetDay: 31}
	if b, err = EncodeSettings(s); err != nil {
		t.Fatal(err)
	}
	if got, err := DecodeSettings(b); err != nil || got != s {
		t.Fatalf("settings read as %+v, %v", got, err)
	}
}

func TestBudgetErrors(t *testing.T) {
	if BudgetName("daily", "/team") != "daily/team" {
		t.Fatal(BudgetName("daily", "/team"))
	}
	const want = `budgets store: entry "daily/team": `
	if _, err := DecodeBudget("daily/team", []byte(`{`)); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("corrupt budget: %v", err)
	}
	if _, err := DecodeBudget("daily/team", []byte(`{"period":"fortnightly"}`)); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("budget of an unknown period: %v", err)
	}
	if _, _, err := DecodeReset("daily/team", []byte(`[]`)); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("corrupt reset: %v", err)
	}
	if _, err := DecodeSettings([]byte(`{"daily_reset_hour":"x"}`)); err == nil || !strings.HasPrefix(err.Error(), "budgets store: settings: ") {
		t.Fatalf("corrupt settings: %v", err)
	}
}
