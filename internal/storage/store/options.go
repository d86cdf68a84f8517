package store

import (
	"runtime"
	"time"

	"go.uber.org/zap"
)

// Defaults applied by Open to zero-valued Options fields.
const (
	// DefaultFlushInterval is the default Options.FlushInterval.
	DefaultFlushInterval = 100 * time.Millisecond
	// DefaultQueueSize is the default Options.QueueSize.
	DefaultQueueSize = 65536
	// DefaultMaxBatch is the default Options.MaxBatch.
	DefaultMaxBatch = 4096
	// DefaultMaxBatchBytes is the default Options.MaxBatchBytes.
	DefaultMaxBatchBytes = 2 << 20
	// DefaultOpenTimeout is the default Options.OpenTimeout.
	DefaultOpenTimeout = 5 * time.Second
	// DefaultInitialMmapSize is the default Options.InitialMmapSize, except
	// on Windows, where mapping a file grows it to the map's size and the
	// default is 0.
	DefaultInitialMmapSize = 256 << 20
)

// Options configure Open.
type Options struct {
	// Path is the bbolt file. Its parent directory is created (mode 0o700)
	// if missing. Required.
	Path string
	// FlushInterval is how often the writer commits queued writes, so it
	// bounds how long an accepted write stays invisible (when the writer
	// keeps up). Default 100ms.
	FlushInterval time.Duration
	// QueueSize is the capacity of the write queue; Enqueue drops writes
	// when it is full. The queue's memory follows the writes waiting, not
	// this capacity. Default 65536.
	QueueSize int
	// MaxBatch is the maximum number of writes per transaction. A full batch
	// is committed at once, without waiting for FlushInterval: the writer is
	// woken as soon as min(MaxBatch, QueueSize/2) writes are waiting (so with
	// MaxBatch above QueueSize/2 batches are smaller than MaxBatch).
	// Default 4096.
	MaxBatch int
	// MaxBatchBytes bounds the memory that queued writes hold (the sum of
	// their Write.Size, or, once the writer has taken a write into its
	// batch, of what its Write.Take returned): once the writes waiting
	// reach it the writer is woken, and a batch is committed as soon as
	// its writes hold it, without waiting for FlushInterval, so large
	// records (bodies) do not pile up in memory between two ticks.
	// Default 2 MiB.
	MaxBatchBytes int64
	// OpenTimeout is how long Open waits for bbolt's exclusive file lock
	// before failing with an error saying the file is locked by another
	// process. Default 5s.
	OpenTimeout time.Duration
	// Logger receives writer warnings and errors. Optional; nil means
	// zap.NewNop().
	Logger *zap.Logger
	// InitialMmapSize is the size of bbolt's first memory map of the file,
	// in bytes: address space, not memory. The map grows by remapping,
	// which copies everything the current transaction has changed, so a
	// map large enough for the file's first months keeps bulk writers
	// (audit and usage records) from paying that copy on every doubling of
	// a young file. Default DefaultInitialMmapSize (0 on Windows); negative
	// means bbolt's own default, which starts at 32 KiB.
	InitialMmapSize int
	// OnCommit, when set, is called by the writer after each transaction
	// that committed, with how long it took and how many writes it held.
	// It must be quick: the writer waits for it.
	OnCommit func(d time.Duration, writes int)
	// NoSync disables fsync after each commit. Only for benchmarks and
	// tests: a crash can corrupt or lose the database.
	NoSync bool
}

// withDefaults returns o with zero or negative fields replaced by defaults.
func (o Options) withDefaults() Options {
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.QueueSize <= 0 {
		o.QueueSize = DefaultQueueSize
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.OpenTimeout <= 0 {
		o.OpenTimeout = DefaultOpenTimeout
	}
	switch {
	case o.InitialMmapSize < 0:
		o.InitialMmapSize = 0
	case o.InitialMmapSize == 0 && runtime.GOOS != "windows":
		o.InitialMmapSize = DefaultInitialMmapSize
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o
}
