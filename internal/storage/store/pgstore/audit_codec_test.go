package pgstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelgate/modelgate/internal/storage/records"
)

// An entry's bodies, the request body included, travel to the database
// and are stored as one record compressed with S2 when that pays (a 64 KiB
// conversation takes a few KiB), and read back as recorded; entries stored
// by earlier versions (the request body alone in request_body, the others
// in an uncompressed record) and values spooled by them read back alike.
func TestAuditBodiesStoredCompressed(t *testing.T) {
	a, db := openAudit(t, AuditOptions{})
	ctx := context.Background()
	turn := `{"role":"user","content":"please refactor parseHeader so that it returns an error"},`
	req := json.RawMessage(`{"model":"m","messages":[` + strings.Repeat(turn, 64<<10/len(turn)) + `{"role":"user","content":"go"}]}`)
	resp := json.RawMessage(`{"id":"r1","choices":[{"message":{"role":"assistant","content":"done"}}]}`)
	e, _ := benchPair(time.Now(), 1, nil)
	e.Data.RequestBody, e.Data.ResponseBody = req, resp
	if !a.AppendEntry(e) {
		t.Fatal("append refused")
	}
	if err := a.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	var stored int
	var reqNull bool
	if err := db.Pool.QueryRow(ctx, `SELECT octet_length(bodies), request_body IS NULL FROM mg_audit_entries WHERE id = $1`,
		e.ID[:]).Scan(&stored, &reqNull); err != nil {
		t.Fatal(err)
	}
	if stored > len(req)/8 || !reqNull {
		t.Errorf("stored bodies %d bytes for a %d-byte request (want under an eighth), request_body NULL %v", stored, len(req), reqNull)
	}
	got, err := a.Entry(e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data.RequestBody, req) || !bytes.Equal(got.Data.ResponseBody, resp) {
		t.Errorf("read back request %d bytes, response %s", len(got.Data.RequestBody), got.Data.ResponseBody)
	}

	// An entry as earlier versions stored it.
	old, _ := benchPair(time.Now(), 2, nil)
	head, _, err := encodeEntry(old, nil)
	if err != nil {
		t.Fatal(err)
	}
	oldBodies := records.AppendBodyList([]byte{bodiesVersion}, resp, nil, nil)
	if _, err := db.Pool.Exec(ctx, `INSERT INTO mg_audit_entries (id, ts, user_path, session_id, req_model, res_model,
			provider_name, provider_type, status, search, head, bodies, request_body)
		VALUES ($1, $2, '/', '', 'm', 'm', 'p', 'openai', 200, '', $3::json, $4, $5)`,
		old.ID[:], old.ID.Time(), string(head), oldBodies, []byte(req)); err != nil {
		t.Fatal(err)
	}
	got, err = a.Entry(old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data.RequestBody, req) || !bytes.Equal(got.Data.ResponseBody, resp) {
		t.Errorf("entry of the earlier format read back request %d bytes, response %s", len(got.Data.RequestBody), got.Data.ResponseBody)
	}

	// A value spooled by earlier versions: the request body beside an
	// uncompressed bodies record.
	v := append([]byte{spoolEntry}, binary.AppendUvarint(nil, uint64(len(head)))...)
	v = append(v, head...)
	v = binary.AppendUvarint(v, uint64(len(req)))
	v = append(append(v, req...), oldBodies...)
	q, err := decodeSpooled(v)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(q.e.Data.RequestBody, req) || !bytes.Equal(q.e.Data.ResponseBody, resp) {
		t.Errorf("spooled value of the earlier format read back request %d bytes, response %s", len(q.e.Data.RequestBody), q.e.Data.ResponseBody)
	}
}
