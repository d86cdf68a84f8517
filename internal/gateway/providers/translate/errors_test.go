package translate

import "testing"

func TestErrorString(t *testing.T) {
	if got := (&Error{Message: "m", Param: "p"}).Error(); got != "m (param p)" {
		t.Fatal(got)
	}
	if got := (&Error{Message: "m"}).Error(); got != "m" {
		t.Fatal(got)
	}
}
