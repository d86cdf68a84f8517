package redistest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is a redis-server process of a test's own, on its own loopback
// port, which the test can stop, freeze (SIGSTOP) and start again to see
// what the gateway does while Redis is away. It keeps nothing on disk: a
// restarted server is empty, as a Redis without persistence comes back.
type Server struct {
	t    testing.TB
	port int
	dir  string
	cmd  *exec.Cmd
}

// StartServer starts a redis-server for t, stopped when t ends. It skips
// (or fails, under MODELGATE_REQUIRE_REDIS=1) when redis-server is not
// installed.
func StartServer(t testing.TB) *Server {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("MODELGATE_REQUIRE_REDIS") == "1" {
			t.Fatalf("redis-server is required (MODELGATE_REQUIRE_REDIS=1): %v", err)
		}
		t.Skipf("skipped: redis-server is not installed (%v)", err)
	}
	s := &Server{t: t, port: freePort(t), dir: t.TempDir()}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// URL is the server's redis:// URL.
func (s *Server) URL() string { return fmt.Sprintf("redis://127.0.0.1:%d/0", s.port) }

// Addr is the server's host:port.
func (s *Server) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

// Start starts the server (again) on its port and waits until it answers.
func (s *Server) Start() {
	s.t.Helper()
	if s.cmd != nil {
		return
	}
	cmd := exec.Command("redis-server", "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--dir", s.dir, "--loglevel", "warning")
	cmd.Stdout, cmd.Stderr = nil, nil
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("redistest: starting redis-server: %v", err)
	}
	s.cmd = cmd
	opts, _ := redis.ParseURL(s.URL())
	c := redis.NewClient(opts)
	defer c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redistest: redis-server on port %d does not answer: %v", s.port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop stops the server (SIGKILL after a thaw, so a frozen one stops too)
// and waits for it to exit. Its data is gone.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Kill()
	_ = s.cmd.Wait()
	s.cmd = nil
}

// Freeze suspends the server with SIGSTOP: connections stay open and
// nothing answers, as with a hung server.
func (s *Server) Freeze() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGSTOP)
	}
}

// Thaw resumes a frozen server.
func (s *Server) Thaw() {
	if s.cmd != nil {
		_ = s.cmd.Process.Signal(syscall.SIGCONT)
	}
}

// freePort returns a loopback port nothing listens on.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("redistest: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
