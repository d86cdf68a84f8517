package handlers

import (
	"net"
	"net/http"
	"net/netip"

	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
)

// fromLoopback reports whether r comes from a client on a loopback
// address (127.0.0.0/8, ::1, or an IPv4-mapped loopback). The client is
// the one Caddy determined: the connection's peer, or the address a
// trusted proxy forwarded (the server's trusted_proxies).
func fromLoopback(r *http.Request) bool {
	addr, _ := caddyhttp.GetVar(r.Context(), caddyhttp.ClientIPVarKey).(string)
	if addr == "" {
		addr = r.RemoteAddr
		if host, _, err := net.SplitHostPort(addr); err == nil {
			addr = host
		}
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return false
	}
	return ip.Unmap().IsLoopback()
}
