package modelgate

import (
	"runtime/debug"
	"strings"
)

// modulePath is the import path of this module, as go.mod names it.
const modulePath = "github.com/modelgate/modelgate"

// Version reports Modelgate's own version and the commit it was built
// from, read from the build information the Go toolchain embeds. The
// version is the module version when Modelgate is a dependency (an
// xcaddy build) or the main module built from a tagged checkout, and
// "(devel)" for a plain source build. The commit is the VCS revision
// (with "+dirty" when the tree had local changes) when the binary was
// built inside a checkout, and empty otherwise.
func Version() (version, commit string) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown", ""
	}
	return versionOf(info)
}

// versionOf is Version for given build information.
func versionOf(info *debug.BuildInfo) (version, commit string) {
	version = "unknown"
	if info.Main.Path == modulePath {
		version = info.Main.Version
	} else {
		for _, dep := range info.Deps {
			if dep.Path != modulePath {
				continue
			}
			if dep.Replace != nil {
				dep = dep.Replace
			}
			version = dep.Version
			break
		}
	}
	if version == "" {
		version = "(devel)"
	}
	var dirty bool
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if info.Main.Path != modulePath {
		// The revision belongs to whatever module was built, not to us.
		commit = ""
	}
	if commit != "" && dirty {
		commit += "+dirty"
	}
	return version, commit
}

// VersionLine is the line `modelgate version` prints before Caddy's own:
// "Modelgate <version>", followed by "commit <revision>" when known.
func VersionLine() string {
	version, commit := Version()
	var b strings.Builder
	b.WriteString("Modelgate ")
	b.WriteString(version)
	if commit != "" {
		b.WriteString(" commit ")
		b.WriteString(commit)
	}
	return b.String()
}
