package proxy

import (
	"net/http"
	"strconv"
	"time"
)

// setServerTiming sets the Server-Timing header of c's answer, when the
// service adds it: upstream is the time from sending the call to now
// (the answer's headers for a stream, the whole answer otherwise, as the
// answer is relayed), gateway the rest of the time since the request
// arrived, which the gateway spent itself (authentication, the plan,
// limits, earlier failover attempts, relaying). Called again once a
// buffered answer is whole (whole), it replaces the earlier value and adds
// ttft, the time from the request's arrival to the answer's first token,
// which a whole answer brings with the rest; a stream's headers leave
// before its first token, so they carry none.
func (s *Service) setServerTiming(w http.ResponseWriter, c *call, whole bool) {
	if !s.ServerTiming || c.started.IsZero() {
		return
	}
	now := time.Now()
	upstream := now.Sub(c.started)
	gateway := now.Sub(c.info.Start) - upstream
	b := make([]byte, 0, 64)
	b = appendTiming(append(b, "gateway;dur="...), gateway)
	b = appendTiming(append(b, ", upstream;dur="...), upstream)
	if whole {
		b = appendTiming(append(b, ", ttft;dur="...), now.Sub(c.info.Start))
	}
	w.Header().Set("Server-Timing", string(b))
}

// appendTiming appends d in milliseconds with a tenth's precision, as
// Server-Timing's dur takes it.
func appendTiming(b []byte, d time.Duration) []byte {
	return strconv.AppendFloat(b, max(float64(d)/float64(time.Millisecond), 0), 'f', 1, 64)
}

// HitServerTiming is the Server-Timing header of an answer the response
// cache gave: the gateway's time since the request arrived at start, and
// the cache hit.
func HitServerTiming(start time.Time) string {
	b := appendTiming([]byte("gateway;dur="), time.Since(start))
	return string(append(b, `, cache;desc="hit"`...))
}
