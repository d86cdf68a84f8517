package pgstore

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/testkit/pgtest"
)

// openDB opens a fresh, migrated database for t through dsn's server.
func openDB(t testing.TB, dsn string) *DB {
	t.Helper()
	db, err := Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Destruct() })
	return db
}

// openAudit returns audit storage over a fresh database, closed when t
// ends.
func openAudit(t testing.TB, opt AuditOptions) (*Audit, *DB) {
	t.Helper()
	db := openDB(t, pgtest.NewDatabase(t))
	a := NewAudit(db, opt)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.Close(ctx)
	})
	return a, db
}

// proxy forwards TCP connections to a server and can be taken down (its
// listener and every connection closed) and brought back on the same
// address: a database that goes away and returns.
type proxy struct {
	t      testing.TB
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]struct{}
}

// newProxy starts a proxy to the host of dsn and returns it with the DSN
// that goes through it.
func newProxy(t testing.TB, dsn string) (*proxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, target: u.Host, conns: map[net.Conn]struct{}{}}
	p.up("127.0.0.1:0")
	u.Host = p.addr
	t.Cleanup(p.down)
	return p, u.String()
}

// up listens on addr and forwards what it accepts.
func (p *proxy) up(addr string) {
	p.t.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the old socket may take a moment to go
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns[c], p.conns[s] = struct{}{}, struct{}{}
			p.mu.Unlock()
			go pipe(c, s)
			go pipe(s, c)
		}
	}()
}

// pipe copies src to dst and closes both at the end.
func pipe(dst, src net.Conn) {
	_, _ = io.Copy(dst, src)
	dst.Close()
	src.Close()
}

// down closes the listener and every connection.
func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// restart brings the proxy back on its address.
func (p *proxy) restart() { p.up(p.addr) }
