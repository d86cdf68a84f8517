//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestExampleProcessesReloadOneAtATime: two processes run from
// Caddyfile.example on one host as docs/operations.md says (each with
// its own MODELGATE_PORT, MODELGATE_ADMIN_PORT and data directory) each
// bind their own admin endpoint, and `reload` run with the second one's
// environment changes the second one only: both keep their own ports.
func TestExampleProcessesReloadOneAtATime(t *testing.T) {
	src, err := os.ReadFile("../Caddyfile.example")
	if err != nil {
		t.Fatal(err)
	}
	var ps []*gatewayProcess
	for i := range 2 {
		dir := t.TempDir()
		ports := freePorts(t, 2)
		if err := os.WriteFile(filepath.Join(dir, "Caddyfile"), src, 0o600); err != nil {
			t.Fatal(err)
		}
		p := &gatewayProcess{
			Name:    fmt.Sprintf("p%d", i+1),
			G:       &gateway{URL: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), DataDir: dir},
			LogPath: filepath.Join(dir, "gateway.log"),
			env:     processEnv(dir, "MODELGATE_PORT="+strconv.Itoa(ports[0]), "MODELGATE_ADMIN_PORT="+strconv.Itoa(ports[1])),
		}
		p.launch(t)
		t.Cleanup(p.stop)
		if err := p.waitHealthy(60 * time.Second); err != nil {
			t.Fatalf("%s: %v\n%s", p.Name, err, p.logTail(40))
		}
		ps = append(ps, p)
		t.Logf("process %s on %s, admin on port %d", p.Name, p.G.URL, ports[1])
	}
	models := func(p *gatewayProcess) string {
		return string(request(t, "GET", p.G.URL+"/v1/models", "").Body)
	}
	// The second process's Caddyfile gains a provider; reload it with
	// its own environment.
	cf := filepath.Join(ps[1].G.DataDir, "Caddyfile")
	changed := strings.Replace(string(src), "\t\tprovider mock {", "\t\tprovider second {\n\t\t\ttype mock\n\t\t}\n\t\tprovider mock {", 1)
	if changed == string(src) {
		t.Fatal("Caddyfile.example has no mock provider block to add a provider beside")
	}
	if err := os.WriteFile(cf, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	reload := exec.Command(self, "reload", "--config", cf, "--adapter", "caddyfile")
	reload.Env = ps[1].env
	if out, err := reload.CombinedOutput(); err != nil {
		t.Fatalf("reload: %v\n%s", err, out)
	}
	poll(t, 10*time.Second, "the reloaded process lists the new provider's models",
		func() bool { return strings.Contains(models(ps[1]), `"owned_by":"second"`) })
	if strings.Contains(models(ps[0]), `"owned_by":"second"`) {
		t.Error("the reload meant for the second process reached the first")
	}
}
