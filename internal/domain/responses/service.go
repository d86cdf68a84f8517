package responses

import (
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"
)

// Defaults of Options.
const (
	// DefaultRetention is how long a response is kept when Options leave
	// it unset: 30 days.
	DefaultRetention = 30 * 24 * time.Hour
	// DefaultQueue is how many records may wait for the writer.
	DefaultQueue = 4096
	// DefaultSweepEvery is how often expired records are deleted.
	DefaultSweepEvery = time.Hour
	// maxBatch caps the records one write commits.
	maxBatch = 256
	// maxChain caps how many responses previous_response_id may chain.
	maxChain = 1000
)

// Options configure a Service.
type Options struct {
	// Storage keeps the records. Required.
	Storage Storage
	// Retention is how long a record is kept; zero or less is
	// DefaultRetention.
	Retention time.Duration
	// Queue is how many records may wait for the writer; zero or less is
	// DefaultQueue. A record that finds the queue full is dropped (and
	// logged): the request path never waits for the store.
	Queue int
	// SweepEvery is how often expired records are deleted; zero or less
	// is DefaultSweepEvery.
	SweepEvery time.Duration
	// Logger receives write failures and drops; nil logs nothing.
	Logger *zap.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Service keeps stored responses: it queues new records for one writer,
// answers reads from the queue and the storage, scoped to the caller's
// user path, and deletes records past the retention.
type Service struct {
	st        Storage
	retention time.Duration
	log       *zap.Logger
	now       func() time.Time

	queue chan *Record
	stop  chan struct{}
	done  sync.WaitGroup
	once  sync.Once

	// writeMu orders a batch's commit against deletes, so that a record
	// deleted while queued is never written afterwards.
	writeMu sync.Mutex
	mu      sync.Mutex
	pending map[string]*Record // queued and not yet committed, by id
	// committed is signalled (with mu) each time records leave pending.
	committed *sync.Cond
}

// New returns a running Service; Close stops it.
func New(o Options) *Service {
	s := &Service{st: o.Storage, retention: o.Retention, log: o.Logger, now: o.Now,
		stop: make(chan struct{}), pending: make(map[string]*Record)}
	s.committed = sync.NewCond(&s.mu)
	if s.retention <= 0 {
		s.retention = DefaultRetention
	}
	if s.log == nil {
		s.log = zap.NewNop()
	}
	if s.now == nil {
		s.now = time.Now
	}
	q := o.Queue
	if q <= 0 {
		q = DefaultQueue
	}
	every := o.SweepEvery
	if every <= 0 {
		every = DefaultSweepEvery
	}
	s.queue = make(chan *Record, q)
	s.done.Add(2)
	go s.write()
	go s.sweepEvery(every)
	return s
}

// Retention returns how long records are kept.
func (s *Service) Retention() time.Duration { return s.retention }

// Keep queues r for storage; it is readable at once. A full queue or a
// closed service drops it, logged.
func (s *Service) Keep(r *Record) {
	if r.CreatedAt.IsZero() {
		r.CreatedAt = s.now()
	}
	s.mu.Lock()
	select {
	case <-s.stop:
		s.mu.Unlock()
		s.log.Warn("stored response dropped: the gateway is stopping", zap.String("id", r.ID))
		return
	default:
	}
	select {
	case s.queue <- r:
		s.pending[r.ID] = r
		s.mu.Unlock()
	default:
		s.mu.Unlock()
		s.log.Warn("stored response dropped: the write queue is full", zap.String("id", r.ID))
	}
}

// write commits queued records in batches until Close, then commits what
// is left.
func (s *Service) write() {
	defer s.done.Done()
	batch := make([]*Record, 0, maxBatch)
	for {
		select {
		case r := <-s.queue:
			batch = append(batch[:0], r)
		drain:
			for len(batch) < maxBatch {
				select {
				case r := <-s.queue:
					batch = append(batch, r)
				default:
					break drain
				}
			}
			s.commit(batch)
		case <-s.stop:
			for {
				select {
				case r := <-s.queue:
					s.commit([]*Record{r})
				default:
					return
				}
			}
		}
	}
}

// commit writes the records of batch still pending (not deleted since
// they were queued) and takes them off the pending list.
func (s *Service) commit(batch []*Record) {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	live := batch[:0:0]
	for _, r := range batch {
		if s.pending[r.ID] == r {
			live = append(live, r)
		}
	}
	s.mu.Unlock()
	if len(live) > 0 {
		if err := s.st.PutResponses(live); err != nil {
			s.log.Error("storing responses failed", zap.Int("records", len(live)), zap.Error(err))
		}
	}
	s.mu.Lock()
	for _, r := range batch {
		if s.pending[r.ID] == r {
			delete(s.pending, r.ID)
		}
	}
	s.committed.Broadcast()
	s.mu.Unlock()
}

// Flush waits until every record queued before it is committed (or
// dropped by a failed write, which is logged).
func (s *Service) Flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(s.pending) > 0 {
		s.committed.Wait()
	}
}

// Close stops the sweeper and the writer, committing what is queued.
func (s *Service) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		close(s.stop)
		s.mu.Unlock()
	})
	s.done.Wait()
	return nil
}

// Destruct implements caddy.Destructor without importing Caddy: Close.
func (s *Service) Destruct() error { return s.Close() }

// Get returns the record id of userPath. Another path's record, an
// expired one and an unknown id are all ErrNotFound.
func (s *Service) Get(userPath, id string) (*Record, error) {
	s.mu.Lock()
	r, ok := s.pending[id]
	s.mu.Unlock()
	if !ok {
		var err error
		if r, err = s.st.Response(id); err != nil {
			return nil, err
		}
	}
	if r.UserPath != userPath || r.CreatedAt.Before(s.now().Add(-s.retention)) {
		return nil, ErrNotFound
	}
	return r, nil
}

// Delete removes the record id of userPath, or returns ErrNotFound as Get
// does.
func (s *Service) Delete(userPath, id string) error {
	if _, err := s.Get(userPath, id); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	_, queued := s.pending[id]
	delete(s.pending, id)
	s.mu.Unlock()
	err := s.st.DeleteResponse(id)
	if queued && errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// Sweep deletes the records past the retention and returns how many.
func (s *Service) Sweep() (int, error) {
	return s.st.DeleteResponsesBefore(s.now().Add(-s.retention))
}

// sweepEvery runs Sweep every period until Close.
func (s *Service) sweepEvery(period time.Duration) {
	defer s.done.Done()
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			if n, err := s.Sweep(); err != nil {
				s.log.Warn("deleting expired responses failed", zap.Error(err))
			} else if n > 0 {
				s.log.Info("expired responses deleted", zap.Int("count", n))
			}
		}
	}
}
