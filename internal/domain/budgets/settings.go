package budgets

import (
	"fmt"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// Settings are the anchors at which named periods roll over, in UTC.
type Settings struct {
	// DailyResetHour (0-23) is the UTC hour at which daily, weekly and
	// monthly periods start.
	DailyResetHour int `json:"daily_reset_hour"`
	// WeeklyResetWeekday (0 = Sunday ... 6 = Saturday) is the day weekly
	// periods start.
	WeeklyResetWeekday int `json:"weekly_reset_weekday"`
	// MonthlyResetDay (1-31) is the day of the month monthly periods
	// start; in a shorter month it is the month's last day.
	MonthlyResetDay int `json:"monthly_reset_day"`
}

// DefaultSettings start days at 00:00 UTC, weeks on Monday (as ISO weeks
// do) and months on the 1st.
func DefaultSettings() Settings {
	return Settings{DailyResetHour: 0, WeeklyResetWeekday: 1, MonthlyResetDay: 1}
}

// Validate reports the first out-of-range field, naming it; the error
// wraps ErrInvalidSettings.
func (s Settings) Validate() error {
	switch {
	case s.DailyResetHour < 0 || s.DailyResetHour > 23:
		return fmt.Errorf("%w: %w", ErrInvalidSettings, apierr.FieldMsg("daily_reset_hour", fmt.Sprintf("must be 0 to 23, got %d", s.DailyResetHour)))
	case s.WeeklyResetWeekday < 0 || s.WeeklyResetWeekday > 6:
		return fmt.Errorf("%w: %w", ErrInvalidSettings,
			apierr.FieldMsg("weekly_reset_weekday", fmt.Sprintf("must be 0 (Sunday) to 6 (Saturday), got %d", s.WeeklyResetWeekday)))
	case s.MonthlyResetDay < 1 || s.MonthlyResetDay > 31:
		return fmt.Errorf("%w: %w", ErrInvalidSettings, apierr.FieldMsg("monthly_reset_day", fmt.Sprintf("must be 1 to 31, got %d", s.MonthlyResetDay)))
	}
	return nil
}
