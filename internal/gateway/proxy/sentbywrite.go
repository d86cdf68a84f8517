package proxy

// writeBuffer is how much of a response net/http holds back until the
// next flush: a write at least this large may reach the client before it
// returns, one smaller waits whole in the server's buffers.
const writeBuffer = 4 << 10

// SentByWrite reports whether a write of n bytes to a client may reach
// the client before the write returns, without a flush. When it is the
// answer's last part, a client that closes the connection on it (as
// coding agents do on a stream's closing event) may be gone before the
// flush that follows, having got the whole answer; a smaller last part
// reaches the client only through that flush.
func SentByWrite(n int) bool { return n >= writeBuffer }
