package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a server process the harness started. Its output goes to a log
// file in the run's temporary directory.
type proc struct {
	name    string
	cmd     *exec.Cmd
	logPath string
	done    chan struct{}
	waitErr error
}

// procs tracks every process started so that stopAll can end them, in
// reverse order, however the run ends.
type procs struct {
	mu   sync.Mutex
	list []*proc
}

// start runs bin with args and env (the whole environment of the child) on
// the CPUs plan allows for it, output to dir/<name>.log.
func (ps *procs) start(plan cpuPlan, cpus, name, bin, dir string, args, env []string) (*proc, error) {
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := plan.command(context.Background(), cpus, bin, args...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = childAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	ps.mu.Lock()
	ps.list = append(ps.list, p)
	ps.mu.Unlock()
	return p, nil
}

// stopAll stops every process, newest first.
func (ps *procs) stopAll() {
	ps.mu.Lock()
	list := ps.list
	ps.list = nil
	ps.mu.Unlock()
	for i := len(list) - 1; i >= 0; i-- {
		list[i].stop(10 * time.Second)
	}
}

// pid is the process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// exited reports whether the process has ended.
func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM (both servers shut down gracefully on it) and, if the
// process has not ended within grace, SIGKILL.
func (p *proc) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// logTail returns the last n bytes of the process's output, for errors.
func (p *proc) logTail(n int) string {
	b, _ := os.ReadFile(p.logPath)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// failure wraps err with the process's recent output.
func (p *proc) failure(err error) error {
	return fmt.Errorf("%s: %w\n--- %s output (tail) ---\n%s", p.name, err, p.name, p.logTail(2000))
}

var listeningRE = regexp.MustCompile(`mockupstream listening on http://(\S+)`)

// waitListening waits for mockupstream to print its address.
func waitListening(ctx context.Context, p *proc, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(p.logPath)
		if m := listeningRE.FindSubmatch(b); m != nil {
			return string(m[1]), nil
		}
		if err := pause(ctx, p, 20*time.Millisecond); err != nil {
			return "", err
		}
	}
	return "", p.failure(errors.New("did not print its address in time"))
}

// waitHTTP polls GET url (with an optional bearer key) until it answers 200.
func waitHTTP(ctx context.Context, p *proc, url, key string, timeout time.Duration) error {
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	var last string
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		if err := pause(ctx, p, 50*time.Millisecond); err != nil {
			return err
		}
	}
	return p.failure(fmt.Errorf("GET %s not ready in %s (last: %s)", url, timeout, last))
}

// pause sleeps d, failing early if ctx ends or the process exits.
func pause(ctx context.Context, p *proc, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-p.done:
		return p.failure(fmt.Errorf("exited early: %v", p.waitErr))
	case <-time.After(d):
		return nil
	}
}

// freePort asks the kernel for a free loopback port. Another process could
// take it before the server binds it; on loopback that is unlikely enough.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// probe sends one POST and returns the status, the headers and the start
// of the body.
func probe(ctx context.Context, url, key string, body []byte) (int, http.Header, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("anthropic-version", "2023-06-01")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, resp.Header, buf.String(), nil
}
