package batches

import "errors"

// FileInUseError refuses to delete a file that an unfinished batch reads
// its lines from: the batch would fail midway.
type FileInUseError struct {
	// BatchID is the batch that reads the file.
	BatchID string
}

// Error implements error.
func (e *FileInUseError) Error() string {
	return "the file is the input of batch " + e.BatchID + ", which has not finished; cancel it or wait for it to end"
}

// FileList is one page of a caller's files.
type FileList struct {
	// Files are the page's files.
	Files []*File
	// More reports that files follow the page.
	More bool
}

// Files lists c's files, of purpose when it is not empty, newest first
// (ascending is false) or oldest first, at most limit of them after the
// file with id after (none: from the start).
func (s *Service) Files(c Caller, purpose, after string, limit int, ascending bool) (FileList, error) {
	all, err := s.st.Files()
	if err != nil {
		return FileList{}, err
	}
	if !ascending {
		for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
			all[i], all[j] = all[j], all[i]
		}
	}
	var out FileList
	skipping := after != ""
	for _, f := range all {
		if skipping {
			skipping = f.ID != after
			continue
		}
		if !c.sees(f.UserPath) || f.Purpose == purposeMessageBatch || (purpose != "" && f.Purpose != purpose) {
			continue
		}
		if len(out.Files) == limit {
			out.More = true
			break
		}
		out.Files = append(out.Files, f)
	}
	return out, nil
}

// DeleteFile deletes c's file id and its content, unless an unfinished
// batch reads its lines from it (a *FileInUseError). Batches that
// finished keep their own output and error files.
func (s *Service) DeleteFile(c Caller, id string) (*File, error) {
	f, err := s.File(c, id)
	if err != nil {
		return nil, err
	}
	all, err := s.st.Batches()
	if err != nil {
		return nil, err
	}
	for _, b := range all {
		if b.InputFileID == id && !b.Finished() {
			return nil, &FileInUseError{BatchID: b.ID}
		}
	}
	if err := s.st.DeleteFile(id); err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return f, nil
}
