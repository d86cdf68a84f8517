package handlers

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
)

var update = flag.Bool("update", false, "rewrite testdata/*.json from the adapted testdata/*.caddyfile")

// TestAdaptGolden adapts each testdata/*.caddyfile as `caddy adapt` does
// and compares the JSON with testdata/*.json (rewritten by -update).
func TestAdaptGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/*.caddyfile")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden inputs: %v", err)
	}
	for _, in := range files {
		t.Run(filepath.Base(in), func(t *testing.T) {
			src, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			out, warnings, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": in})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range warnings {
				t.Errorf("warning: %s", w.String())
			}
			var pretty bytes.Buffer
			if err := json.Indent(&pretty, out, "", "\t"); err != nil {
				t.Fatal(err)
			}
			pretty.WriteByte('\n')
			golden := strings.TrimSuffix(in, ".caddyfile") + ".json"
			if *update {
				if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(pretty.Bytes(), want) {
				t.Errorf("adapted JSON differs from %s (run with -update after checking the change):\n%s", golden, pretty.String())
			}
		})
	}
}

// helper returns a Helper over one directive's tokens.
func helper(input string) httpcaddyfile.Helper {
	return httpcaddyfile.Helper{Dispenser: caddyfile.NewTestDispenser(input)}
}

func TestDirectives(t *testing.T) {
	for _, name := range chain {
		h, err := parseBare(name)(helper(name))
		if err != nil || h == nil {
			t.Fatalf("%s: %v", name, err)
		}
		if id := h.(caddy.Module).CaddyModule().ID; id != caddy.ModuleID("http.handlers."+name) {
			t.Errorf("%s made module %s", name, id)
		}
		for _, bad := range []string{name + " extra", name + " {\n option\n}"} {
			if _, err := parseBare(name)(helper(bad)); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
				t.Errorf("%q: %v", bad, err)
			}
		}
	}
	vals, err := parseModelgate(helper("modelgate"))
	if err != nil || len(vals) != 1 {
		t.Fatalf("modelgate: %v %v", vals, err)
	}
	// The chain's handlers sit in the route itself, in order: no subroute,
	// whose route list would be compiled again on every request.
	var got []string
	for _, raw := range vals[0].Value.(caddyhttp.Route).HandlersRaw {
		var h struct {
			Handler string `json:"handler"`
		}
		if err := json.Unmarshal(raw, &h); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		got = append(got, h.Handler)
	}
	if strings.Join(got, " ") != strings.Join(chain, " ") {
		t.Fatalf("chain %v", got)
	}
	// A path matcher becomes the route's matcher; the chain is unchanged.
	vals, err = parseModelgate(helper("modelgate /v1/*"))
	if err != nil || len(vals) != 1 {
		t.Fatalf("modelgate /v1/*: %v %v", vals, err)
	}
	if m := vals[0].Value.(caddyhttp.Route).MatcherSetsRaw; len(m) != 1 || string(m[0]["path"]) != `["/v1/*"]` {
		t.Fatalf("matcher %v", m)
	}
	for _, bad := range []string{"modelgate extra", "modelgate /v1/* extra", "modelgate {\n storage x\n}"} {
		if _, err := parseModelgate(helper(bad)); err == nil || !strings.Contains(err.Error(), "takes no arguments") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
