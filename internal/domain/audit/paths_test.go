package audit

import "testing"

func TestChildOf(t *testing.T) {
	for _, c := range []struct {
		path, prefix string
		under        bool
		child        string
	}{
		{"/team", "/team", true, ""},
		{"/team/app", "/team", true, "/team/app"},
		{"/team/app/x", "/team", true, "/team/app"},
		{"/team-alpha", "/team", false, ""},
		{"/te", "/team", false, ""},
		{"/", "/", true, ""},
		{"/a/b", "/", true, "/a"},
		{"/a", "/", true, "/a"},
	} {
		child, ok := ChildOf(c.prefix, c.path)
		if child != c.child || ok != (c.child != "") {
			t.Errorf("ChildOf(%q, %q) = %q, %v; want %q", c.prefix, c.path, child, ok, c.child)
		}
	}
}
