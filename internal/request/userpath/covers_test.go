package userpath

import "testing"

func TestCovers(t *testing.T) {
	for _, c := range []struct {
		prefix, path string
		want         bool
	}{
		{"/", "/", true},
		{"/", "/anything/deep", true},
		{"/team", "/team", true},
		{"/team", "/team/app", true},
		{"/team", "/team/app/x", true},
		{"/team", "/team-alpha", false},
		{"/team", "/teamx/app", false},
		{"/team", "/te", false},
		{"/team", "/", false},
		{"/team/app", "/team", false},
	} {
		if got := Covers(c.prefix, c.path); got != c.want {
			t.Errorf("Covers(%q, %q) = %v, want %v", c.prefix, c.path, got, c.want)
		}
	}
}
