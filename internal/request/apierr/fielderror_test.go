package apierr

import (
	"errors"
	"fmt"
	"testing"
)

func TestFieldError(t *testing.T) {
	base := errors.New("must be positive")
	err := fmt.Errorf("invalid: %w", Field("targets[0].weight", base))
	if ParamOf(err) != "targets[0].weight" || !errors.Is(err, base) || err.Error() != "invalid: targets[0].weight: must be positive" {
		t.Errorf("%v: param %q", err, ParamOf(err))
	}
	if ParamOf(errors.New("plain")) != "" || ParamOf(nil) != "" {
		t.Error("a plain error names a field")
	}
	if FieldMsg("amount", "missing").Error() != "amount: missing" {
		t.Error(FieldMsg("amount", "missing"))
	}
}
