package audit

import "sync"

// ResponseSessions remembers which session produced each Responses API
// answer, so that a request continuing it with previous_response_id joins
// the same session. Lookups are scoped by user path: naming another
// tenant's response id finds nothing. It holds at most its capacity of
// answers, forgetting the oldest first. It is safe for concurrent use.
type ResponseSessions struct {
	mu    sync.Mutex
	m     map[responseKey]string
	ring  []responseKey // insertion order, for eviction
	next  int
	limit int
}

// responseKey is a response id within a user path.
type responseKey struct{ userPath, responseID string }

// NewResponseSessions returns an empty memory for up to capacity answers
// (at least 1). It grows as answers arrive: a gateway that serves no
// Responses API traffic spends no memory on it.
func NewResponseSessions(capacity int) *ResponseSessions {
	capacity = max(1, capacity)
	return &ResponseSessions{m: make(map[responseKey]string), limit: capacity}
}

// Remember records that responseID, answered under userPath, belongs to
// sessionID. Empty ids are ignored.
func (r *ResponseSessions) Remember(userPath, responseID, sessionID string) {
	if responseID == "" || sessionID == "" {
		return
	}
	k := responseKey{userPath, responseID}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.m[k]; ok {
		r.m[k] = sessionID
		return
	}
	if len(r.ring) < r.limit {
		r.ring = append(r.ring, k)
	} else {
		delete(r.m, r.ring[r.next])
		r.ring[r.next] = k
		r.next = (r.next + 1) % r.limit
	}
	r.m[k] = sessionID
}

// Lookup returns the session of responseID under userPath. Its signature
// fits SessionInput.PreviousResponse.
func (r *ResponseSessions) Lookup(userPath, responseID string) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	s, ok := r.m[responseKey{userPath, responseID}]
	return s, ok
}
