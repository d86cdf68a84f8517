package modelgate

import (
	"runtime/debug"
	"testing"
)

func TestVersionOfMainModule(t *testing.T) {
	info := &debug.BuildInfo{
		Main: debug.Module{Path: modulePath, Version: "v1.2.3"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "abc123"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	version, commit := versionOf(info)
	if version != "v1.2.3" || commit != "abc123+dirty" {
		t.Fatalf("versionOf = %q, %q; want v1.2.3, abc123+dirty", version, commit)
	}
}

func TestVersionOfDependency(t *testing.T) {
	info := &debug.BuildInfo{
		Main: debug.Module{Path: "caddy", Version: "(devel)"},
		Deps: []*debug.Module{
			{Path: "github.com/caddyserver/caddy/v2", Version: "v2.10.0"},
			{Path: modulePath, Version: "v0.9.0"},
		},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "fff"}},
	}
	version, commit := versionOf(info)
	if version != "v0.9.0" || commit != "" {
		t.Fatalf("versionOf = %q, %q; want v0.9.0 and no commit", version, commit)
	}
}

func TestVersionOfDevelBuild(t *testing.T) {
	info := &debug.BuildInfo{Main: debug.Module{Path: modulePath}}
	if version, _ := versionOf(info); version != "(devel)" {
		t.Fatalf("versionOf = %q; want (devel)", version)
	}
}
