package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Server is a PostgreSQL server of a test's own, in a fresh data
// directory on its own loopback port, which the test can stop, freeze
// (SIGSTOP) and start again to see what the gateway does while its
// database is away. Its data survives a stop, as a real server's does.
type Server struct {
	t    testing.TB
	bin  string // the directory of initdb and postgres
	dir  string // the data directory
	port int
	cmd  *exec.Cmd
	// cred runs the server as the postgres user when the test runs as
	// root (which PostgreSQL refuses); nil otherwise.
	cred *syscall.Credential
}

// StartServer initialises a data directory and starts a server for t,
// stopped and removed when t ends. It skips (or fails, under
// MODELGATE_REQUIRE_POSTGRES=1) when PostgreSQL's binaries are not
// installed.
func StartServer(t testing.TB) *Server {
	t.Helper()
	bin, err := serverBinaries()
	if err != nil {
		if os.Getenv("MODELGATE_REQUIRE_POSTGRES") == "1" {
			t.Fatalf("PostgreSQL's server binaries are required (MODELGATE_REQUIRE_POSTGRES=1): %v", err)
		}
		t.Skipf("skipped: %v", err)
	}
	dir, err := os.MkdirTemp("", "mgtest-pg-")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	s := &Server{t: t, bin: bin, dir: filepath.Join(dir, "data"), port: freePort(t)}
	if os.Geteuid() == 0 {
		if s.cred, err = chownTo(dir, "postgres"); err != nil {
			t.Fatalf("pgtest: %v", err)
		}
	}
	if out, err := s.command("initdb", "-D", s.dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("pgtest: initdb: %v\n%s", err, out)
	}
	s.Start()
	t.Cleanup(s.Stop)
	return s
}

// DSN is the DSN of the server's database postgres.
func (s *Server) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// Start starts the server (again) and waits until it accepts connections.
func (s *Server) Start() {
	s.t.Helper()
	if s.cmd != nil {
		return
	}
	cmd := s.command("postgres", "-D", s.dir, "-p", strconv.Itoa(s.port), "-k", s.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=200")
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("pgtest: starting postgres: %v", err)
	}
	s.cmd = cmd
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		c, err := pgx.Connect(ctx, s.DSN())
		if err == nil {
			_ = c.Close(ctx)
			cancel()
			return
		}
		cancel()
		if time.Now().After(deadline) {
			s.t.Fatalf("pgtest: postgres on port %d does not accept connections: %v", s.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Stop stops the server with a fast shutdown (open connections are cut)
// and waits for it to exit. A frozen server is thawed first.
func (s *Server) Stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}

// Freeze suspends the server's postmaster and every backend with
// SIGSTOP: connections stay open and nothing answers, as with a hung
// server.
func (s *Server) Freeze() { s.signalAll(syscall.SIGSTOP) }

// Thaw resumes a frozen server.
func (s *Server) Thaw() { s.signalAll(syscall.SIGCONT) }

// signalAll sends sig to the postmaster's process group (it and its
// backends; the group is its own, see command).
func (s *Server) signalAll(sig syscall.Signal) {
	if s.cmd != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, sig)
	}
}

// command runs name from the server binaries, as s.cred when set, in a
// process group of its own.
func (s *Server) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(s.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: s.cred}
	if s.cred != nil {
		cmd.Dir = filepath.Dir(s.dir)
	}
	return cmd
}

// serverBinaries finds the directory of initdb and postgres: on PATH, or
// in Debian's /usr/lib/postgresql/<version>/bin.
func serverBinaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(matches) == 0 {
		return "", fmt.Errorf("PostgreSQL's initdb is not installed (not on PATH nor in /usr/lib/postgresql/*/bin)")
	}
	return filepath.Dir(matches[len(matches)-1]), nil
}

// chownTo gives dir to the named user and returns that user's
// credential.
func chownTo(dir, name string) (*syscall.Credential, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("the server must run as user %s when tests run as root: %w", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(dir, uid, gid); err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort returns a loopback port nothing listens on.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("pgtest: finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
