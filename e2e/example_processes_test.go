//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	type proc struct {
		dir, url string
		env      []string
	}
	var ps []proc
	for i := range 2 {
		dir := t.TempDir()
		ports := freePorts(t, 2)
		cf := filepath.Join(dir, "Caddyfile")
		if err := os.WriteFile(cf, src, 0o600); err != nil {
			t.Fatal(err)
		}
		p := proc{dir: dir, url: fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
			env: processEnv(dir, "MODELGATE_PORT="+strconv.Itoa(ports[0]), "MODELGATE_ADMIN_PORT="+strconv.Itoa(ports[1]))}
		cmd := exec.Command(self, "run", "--config", cf, "--adapter", "caddyfile")
		cmd.Dir, cmd.Env = dir, p.env
		log, err := os.Create(filepath.Join(dir, "gateway.log"))
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); log.Close(); close(exited) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(os.Interrupt)
			select {
			case <-exited:
			case <-time.After(10 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
			}
		})
		waitHealthy(t, p.url)
		ps = append(ps, p)
		t.Logf("process %d on %s, admin on port %d", i+1, p.url, ports[1])
	}
	models := func(p proc) string {
		return string(request(t, "GET", p.url+"/v1/models", "").Body)
	}
	// The second process's Caddyfile gains a provider; reload it with
	// its own environment.
	cf := filepath.Join(ps[1].dir, "Caddyfile")
	changed := strings.Replace(string(src), "\t\tprovider mock {", "\t\tprovider second {\n\t\t\ttype mock\n\t\t}\n\t\tprovider mock {", 1)
	if changed == string(src) {
		t.Fatal("Caddyfile.example has no mock provider block to add a provider beside")
	}
	if err := os.WriteFile(cf, []byte(changed), 0o600); err != nil {
		t.Fatal(err)
	}
	reload := exec.Command(self, "reload", "--config", cf, "--adapter", "caddyfile")
	reload.Dir, reload.Env = ps[1].dir, ps[1].env
	if out, err := reload.CombinedOutput(); err != nil {
		t.Fatalf("reload: %v\n%s", err, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(models(ps[1]), `"owned_by":"second"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the reloaded process does not list the new provider's models: %s", models(ps[1]))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if strings.Contains(models(ps[0]), `"owned_by":"second"`) {
		t.Error("the reload meant for the second process reached the first")
	}
}
