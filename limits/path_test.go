package limits

import "testing"

func TestNormalizeUserPath(t *testing.T) {
	for in, want := range map[string]string{
		"": "/", "/": "/", " / ": "/", "team": "/team", "/team/": "/team", "//team//app//": "/team/app",
		"/Team/App": "/Team/App", "/team": "/team",
	} {
		if got := NormalizeUserPath(in); got != want {
			t.Errorf("NormalizeUserPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPathCovers(t *testing.T) {
	cases := []struct {
		subject, path string
		want          bool
	}{
		{"/", "/", true},
		{"/", "/anything/deep", true},
		{"/team", "/team", true},
		{"/team", "/team/app", true},
		{"/team", "/team/app/x", true},
		{"/team", "/team-alpha", false},
		{"/team", "/teamx/app", false},
		{"/team", "/", false},
		{"/team/app", "/team", false},
	}
	for _, c := range cases {
		if got := pathCovers(c.subject, c.path); got != c.want {
			t.Errorf("pathCovers(%q, %q) = %v, want %v", c.subject, c.path, got, c.want)
		}
	}
}

func TestChildOf(t *testing.T) {
	cases := []struct {
		parent, path, child string
		ok                  bool
	}{
		{"/customers", "/customers/alice", "alice", true},
		{"/customers", "/customers/alice/app", "alice", true},
		{"/customers", "/customers", "", false},
		{"/customers", "/customers-x/alice", "", false},
		{"/", "/alice/app", "alice", true},
		{"/", "/", "", false},
	}
	for _, c := range cases {
		child, ok := childOf(c.parent, c.path)
		if child != c.child || ok != c.ok {
			t.Errorf("childOf(%q, %q) = %q, %v; want %q, %v", c.parent, c.path, child, ok, c.child, c.ok)
		}
	}
}

func TestAppendLower(t *testing.T) {
	for _, s := range []string{"OpenAI/GPT-4o", "ÄÖÜ-Modell", "plain", "bad\xffutf8"} {
		if got, want := string(appendLower(nil, s)), lowerString(s); got != want {
			t.Errorf("appendLower(%q) = %q, lowerString = %q", s, got, want)
		}
	}
	if got := lowerString("OpenAI/GPT-4o"); got != "openai/gpt-4o" {
		t.Errorf("lowerString = %q", got)
	}
}
