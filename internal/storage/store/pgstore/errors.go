package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/puddle/v2"

	"github.com/modelgate/modelgate/internal/storage/store"
)

// opTimeout bounds one storage operation, so that a server that stopped
// answering fails an admin write instead of holding it.
const opTimeout = 10 * time.Second

// opContext returns the context of one storage operation.
func opContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), opTimeout)
}

// classify wraps err with store.ErrUnavailable when it says the server
// could not be reached, and returns any other error as it is.
func classify(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || !unreachable(err) {
		return err
	}
	return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
}

// unreachable reports whether err is a connection failure rather than an
// answer of the server: a failed connect, a broken or timed-out
// connection, a closed pool, or a server error of the connection
// exception class (08) or the shutdown codes (57P01-57P03), or a statement
// refused because its connection was already closed.
func unreachable(err error) bool {
	var (
		connErr *pgconn.ConnectError
		netErr  net.Error
		pgErr   *pgconn.PgError
	)
	switch {
	case errors.As(err, &pgErr):
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	case errors.As(err, &connErr), errors.As(err, &netErr), pgconn.Timeout(err),
		errors.Is(err, context.DeadlineExceeded), errors.Is(err, puddle.ErrClosedPool),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return true
	}
	// A statement on a connection the server or network already closed
	// fails before anything is sent ("conn closed"): pgconn marks it safe
	// to retry.
	return pgconn.SafeToRetry(err) || strings.Contains(err.Error(), "conn closed")
}
