package batches

import "errors"

// ErrNotFound is returned by Storage reads for an id that is not stored.
var ErrNotFound = errors.New("batches: not found")

// Storage is what the batches domain needs from a persistent store. Every
// write is durable when it returns: batch progress is written rarely
// compared to the request path, and a restart must find it.
type Storage interface {
	// PutFile stores a file and its content.
	PutFile(f *File, content []byte) error
	// File returns the file with that id, or ErrNotFound.
	File(id string) (*File, error)
	// FileContent returns the content of the file with that id, or
	// ErrNotFound.
	FileContent(id string) ([]byte, error)
	// Files returns every stored file (without content), oldest first.
	Files() ([]*File, error)
	// DeleteFile removes the file with that id and its content, or
	// returns ErrNotFound.
	DeleteFile(id string) error
	// PutBatch stores b, replacing the stored batch of its id.
	PutBatch(b *Batch) error
	// Batch returns the batch with that id, or ErrNotFound.
	Batch(id string) (*Batch, error)
	// Batches returns every stored batch, oldest first.
	Batches() ([]*Batch, error)
	// DeleteBatch removes the batch with that id and its line results, or
	// returns ErrNotFound.
	DeleteBatch(id string) error
	// PutResult stores the result of one line of b together with b
	// itself, in one transaction, so that progress and counts agree.
	PutResult(b *Batch, r *Result) error
	// Results returns the stored results of batch id, by line.
	Results(id string) ([]*Result, error)
}
