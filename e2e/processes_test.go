//go:build linux

package e2e

// Gateways in separate OS processes: this test binary re-executed as the
// modelgate command (see childGatewayEnv), each process with its own
// Caddyfile, ports, bbolt file and log, so a test can run several that
// share networked storage and kill one with SIGKILL.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	caddyfmt "github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// gatewayProcess is one gateway running in its own OS process.
type gatewayProcess struct {
	// Name labels the process in messages ("p1").
	Name string
	// G is where it listens; its DataDir is the process's own directory.
	G *gateway
	// LogPath holds what the process wrote to stdout and stderr.
	LogPath string

	cmd    *exec.Cmd
	env    []string
	exited chan struct{} // closed when the process has exited
	err    error         // its exit status, once exited is closed
}

// launch starts the process on the Caddyfile in its directory, its log
// appended to LogPath.
func (p *gatewayProcess) launch(t *testing.T) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logFile, err := os.OpenFile(p.LogPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p.exited = make(chan struct{})
	p.cmd = exec.Command(self, "run", "--config", filepath.Join(p.G.DataDir, "Caddyfile"), "--adapter", "caddyfile")
	p.cmd.Env = p.env
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := p.cmd.Start(); err != nil {
		logFile.Close()
		t.Fatalf("starting gateway process %s: %v", p.Name, err)
	}
	cmd, exited := p.cmd, p.exited
	go func() {
		p.err = cmd.Wait()
		logFile.Close()
		close(exited)
	}()
}

// restart starts a stopped process again, on its own directory (its
// data file) and ports, and waits until it is healthy.
func (p *gatewayProcess) restart(t *testing.T) {
	t.Helper()
	p.launch(t)
	if err := p.waitHealthy(60 * time.Second); err != nil {
		t.Fatalf("restarting %s: %v\n%s", p.Name, err, p.logTail(40))
	}
}

// processEnv is the whole environment of a gateway process: nothing of
// the test's environment but PATH, so no provider key, switch or
// rate-limit rule of the host reaches it; Caddy keeps its files inside dir.
func processEnv(dir string, extra ...string) []string {
	env := []string{
		childGatewayEnv + "=1",
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"TMPDIR=" + dir,
		"XDG_CONFIG_HOME=" + filepath.Join(dir, "xdg-config"),
		"XDG_DATA_HOME=" + filepath.Join(dir, "xdg-data"),
		"MODELGATE_DATA_PATH=" + filepath.Join(dir, "modelgate.db"),
	}
	return append(env, extra...)
}

// processCaddyfile is a complete Caddyfile for a gateway process: the
// global modelgate option with modelgateBlock as its body (which names the
// storage), Caddy's admin endpoint on adminPort, and a site on port.
func processCaddyfile(modelgateBlock string, port, adminPort int, dir string) string {
	return fmt.Sprintf(`{
	admin 127.0.0.1:%d
	persist_config off
	auto_https off
	storage file_system %s
	log {
		level WARN
	}
	modelgate {
%s
	}
}
http://127.0.0.1:%d {
	modelgate
}
`, adminPort, filepath.Join(dir, "caddy"), modelgateBlock, port)
}

// startGatewayProcesses starts n gateway processes at once on the same
// modelgate block and environment additions, waits until every one is
// healthy (up to 60 s: they may all migrate one database at start), and
// stops them when the test ends (SIGINT, then SIGKILL after 10 s). A
// process that dies with the test binary takes its children with it
// (Pdeathsig).
func startGatewayProcesses(t *testing.T, n int, modelgateBlock string, env ...string) []*gatewayProcess {
	t.Helper()
	ps := make([]*gatewayProcess, n)
	for i := range ps {
		dir := t.TempDir()
		ports := freePorts(t, 2)
		p := &gatewayProcess{
			Name: fmt.Sprintf("p%d", i+1),
			G: &gateway{
				URL:      fmt.Sprintf("http://127.0.0.1:%d", ports[0]),
				AdminURL: fmt.Sprintf("http://127.0.0.1:%d", ports[1]),
				DataDir:  dir,
			},
			LogPath: filepath.Join(dir, "gateway.log"),
		}
		cf := filepath.Join(dir, "Caddyfile")
		text := caddyfmt.Format([]byte(processCaddyfile(modelgateBlock, ports[0], ports[1], dir)))
		if err := os.WriteFile(cf, text, 0o600); err != nil {
			t.Fatal(err)
		}
		p.env = processEnv(dir, env...)
		p.launch(t)
		t.Cleanup(p.stop)
		ps[i] = p
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.waitHealthy(60 * time.Second)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("gateway process %s: %v\n%s", ps[i].Name, err, ps[i].logTail(40))
		}
	}
	return ps
}

// waitHealthy waits until GET /health answers 200, the process exits or
// the timeout passes.
func (p *gatewayProcess) waitHealthy(timeout time.Duration) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-p.exited:
			return fmt.Errorf("exited before it was healthy: %v", p.err)
		default:
		}
		if resp, err := client.Get(p.G.URL + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("not healthy after %v", timeout)
}

// kill sends SIGKILL (kill -9) and waits until the process is gone.
func (p *gatewayProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %s: %v", p.Name, err)
	}
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s still running 10 s after SIGKILL", p.Name)
	}
}

// stop interrupts the process (Caddy then stops gracefully and the
// gateway flushes what it queued) and kills it if it has not exited after
// 10 s.
func (p *gatewayProcess) stop() {
	select {
	case <-p.exited:
		return
	default:
	}
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// logTail is the last n lines the process logged, indented, for failure
// messages.
func (p *gatewayProcess) logTail(n int) string {
	b, err := os.ReadFile(p.LogPath)
	if err != nil {
		return "  (no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(bytes.ToValidUTF8(b, nil)), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + p.Name + " log:\n    " + strings.Join(lines, "\n    ")
}

// TestSecondProcessOnOneDataFileIsToldWhy: a second gateway process
// started on the data file another one holds does not start, and its
// error says what to do: a data file per process, state shared through
// PostgreSQL and Redis.
func TestSecondProcessOnOneDataFileIsToldWhy(t *testing.T) {
	block := "master_key " + masterKey + "\nprovider demo {\n type mock\n}"
	first := startGatewayProcesses(t, 1, block)[0]
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ports := freePorts(t, 2)
	cf := filepath.Join(dir, "Caddyfile")
	if err := os.WriteFile(cf, caddyfmt.Format([]byte(processCaddyfile(block, ports[0], ports[1], dir))), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "run", "--config", cf, "--adapter", "caddyfile")
	cmd.Env = processEnv(dir, "MODELGATE_DATA_PATH="+filepath.Join(first.G.DataDir, "modelgate.db"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err == nil || ctx.Err() != nil {
		t.Fatalf("the second process on one data file: %v (context %v)\n%s", err, ctx.Err(), out)
	}
	for _, want := range []string{"locked by another process", "MODELGATE_DATA_PATH", "postgres and redis"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("its error does not say %q:\n%s", want, out)
		}
	}
}
