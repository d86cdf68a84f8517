package batches

// fileView is a file in OpenAI's shape.
type fileView struct {
	ID        string `json:"id"`
	Object    string `json:"object"`
	Bytes     int64  `json:"bytes"`
	CreatedAt int64  `json:"created_at"`
	Filename  string `json:"filename"`
	Purpose   string `json:"purpose"`
	Status    string `json:"status"`
}

func viewFile(f *File) fileView {
	return fileView{ID: f.ID, Object: "file", Bytes: f.Bytes, CreatedAt: f.CreatedAt, Filename: f.Filename,
		Purpose: f.Purpose, Status: "processed"}
}

// fileListView is a page of files in OpenAI's list shape.
type fileListView struct {
	Object  string     `json:"object"`
	Data    []fileView `json:"data"`
	FirstID *string    `json:"first_id"`
	LastID  *string    `json:"last_id"`
	HasMore bool       `json:"has_more"`
}

// fileDeletedView is the answer to a file's deletion.
type fileDeletedView struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Deleted bool   `json:"deleted"`
}

// batchView is a batch in OpenAI's shape.
type batchView struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	Endpoint         string            `json:"endpoint"`
	Errors           *errorsView       `json:"errors"`
	InputFileID      string            `json:"input_file_id"`
	CompletionWindow string            `json:"completion_window"`
	Status           string            `json:"status"`
	OutputFileID     *string           `json:"output_file_id"`
	ErrorFileID      *string           `json:"error_file_id"`
	CreatedAt        int64             `json:"created_at"`
	InProgressAt     *int64            `json:"in_progress_at"`
	ExpiresAt        *int64            `json:"expires_at"`
	FinalizingAt     *int64            `json:"finalizing_at"`
	CompletedAt      *int64            `json:"completed_at"`
	FailedAt         *int64            `json:"failed_at"`
	ExpiredAt        *int64            `json:"expired_at"`
	CancellingAt     *int64            `json:"cancelling_at"`
	CancelledAt      *int64            `json:"cancelled_at"`
	RequestCounts    countsView        `json:"request_counts"`
	Metadata         map[string]string `json:"metadata"`
}

// countsView is a batch's request counts.
type countsView struct {
	Total     int `json:"total"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
}

// errorsView lists why a batch failed.
type errorsView struct {
	Object string      `json:"object"`
	Data   []errorView `json:"data"`
}

// errorView is one reason a batch failed.
type errorView struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// listView is a page of batches.
type listView struct {
	Object  string      `json:"object"`
	Data    []batchView `json:"data"`
	FirstID *string     `json:"first_id"`
	LastID  *string     `json:"last_id"`
	HasMore bool        `json:"has_more"`
}

// optional is a pointer to t, nil for 0.
func optional(t int64) *int64 {
	if t == 0 {
		return nil
	}
	return &t
}

// optionalID is a pointer to id, nil for "".
func optionalID(id string) *string {
	if id == "" {
		return nil
	}
	return &id
}

func viewBatch(b *Batch) batchView {
	v := batchView{
		ID: b.ID, Object: "batch", Endpoint: b.Endpoint, InputFileID: b.InputFileID,
		CompletionWindow: b.CompletionWindow, Status: b.Status,
		OutputFileID: optionalID(b.OutputFileID), ErrorFileID: optionalID(b.ErrorFileID),
		CreatedAt: b.CreatedAt, InProgressAt: optional(b.InProgressAt), ExpiresAt: optional(b.ExpiresAt),
		FinalizingAt: optional(b.FinalizingAt), CompletedAt: optional(b.CompletedAt), FailedAt: optional(b.FailedAt),
		CancellingAt: optional(b.CancellingAt), CancelledAt: optional(b.CancelledAt),
		RequestCounts: countsView{Total: b.Total, Completed: b.Completed, Failed: b.Failed},
		Metadata:      b.Metadata,
	}
	if b.FailReason != "" {
		v.Errors = &errorsView{Object: "list", Data: []errorView{{Code: "failed", Message: b.FailReason}}}
	}
	return v
}
