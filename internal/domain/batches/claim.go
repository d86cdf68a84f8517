package batches

import (
	"context"
	"time"
)

// Claimer is implemented by a Storage that several gateway processes
// share. Before a process runs a batch it claims it; a batch claimed by
// another process is left to that process. A claim lasts until release is
// called or the claiming process dies, whichever comes first, so a batch
// whose process died is taken over by the next Resume of another.
type Claimer interface {
	// Claim tries to claim batch id. ok is false when another process
	// holds it. release must be called once the run ends.
	Claim(ctx context.Context, id string) (release func(), ok bool, err error)
}

// DefaultResumeEvery is how often KeepResuming looks for batches that no
// process runs.
const DefaultResumeEvery = 30 * time.Second

// claim claims batch id when the storage is shared, reporting whether this
// process may run it.
func (s *Service) claim(id string) (release func(), ok bool) {
	c, shared := s.st.(Claimer)
	if !shared {
		return func() {}, true
	}
	release, ok, err := c.Claim(s.ctx, id)
	if err != nil {
		s.logf(id, "claiming the batch: %v", err)
		return nil, false
	}
	return release, ok
}

// KeepResuming calls Resume every interval until the service closes, so
// that batches left by a process that died are taken over. It is for
// storages several processes share; it returns at once otherwise.
func (s *Service) KeepResuming(every time.Duration) {
	if _, shared := s.st.(Claimer); !shared {
		return
	}
	if every <= 0 {
		every = DefaultResumeEvery
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				if err := s.Resume(); err != nil {
					s.logger.Warn("resuming batches: " + err.Error())
				}
			}
		}
	}()
}

// refresh re-reads the batch of rn from a shared storage once claimed:
// another process may have run it meanwhile. It reports whether the batch
// still needs this run.
func (s *Service) refresh(rn *run) bool {
	if _, shared := s.st.(Claimer); !shared {
		return true
	}
	rn.mu.Lock()
	defer rn.mu.Unlock()
	fresh, err := s.st.Batch(rn.b.ID)
	if err != nil {
		s.logf(rn.b.ID, "re-reading the claimed batch: %v", err)
		return false
	}
	*rn.b = *fresh
	return !rn.b.Finished() || !rn.b.UsageRecorded
}
