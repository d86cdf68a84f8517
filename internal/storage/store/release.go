package store

import (
	"time"

	"go.etcd.io/bbolt"
)

// releaseEvery is how often the writer lets go of the store file's pages
// it has touched through bbolt's memory map.
const releaseEvery = time.Second

// releaseMapped drops the pages of the store file that this process has
// touched through bbolt's read-only memory map from its resident set, at
// most once per releaseEvery. bbolt reads the file through the map, so
// every page the writer reads back (the newest leaves of each bucket, on
// every commit) stays mapped into the process, and the resident set grows
// with the file although those pages are the kernel's page cache, not the
// process's memory. Dropping them changes no data: the next read of such
// a page maps it again from the page cache. It runs inside a read
// transaction, which keeps bbolt from remapping the file meanwhile.
func (w *writer) releaseMapped() {
	now := time.Now()
	if now.Sub(w.lastRelease) < releaseEvery {
		return
	}
	w.lastRelease = now
	_ = w.s.db.View(func(tx *bbolt.Tx) error {
		dropMapped(tx.DB().Info().Data, tx.Size())
		return nil
	})
}
