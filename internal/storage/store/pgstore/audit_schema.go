package pgstore

// The audit domain's tables. Ids are the 16 bytes of audit.ID, which sort
// by time as bytes, so the primary keys order entries and records by time
// and time bounds are id bounds. Text columns use the "C" collation, so
// they compare and sort byte by byte. Aggregate rows are keyed by their
// period start and are updated by the batched writer in the transaction
// that inserts their records.
var _ = register("audit",
	`CREATE TABLE mg_audit_entries (
		id            bytea PRIMARY KEY,
		ts            timestamptz NOT NULL,
		user_path     text COLLATE "C" NOT NULL,
		session_id    text COLLATE "C" NOT NULL,
		req_model     text COLLATE "C" NOT NULL,
		res_model     text COLLATE "C" NOT NULL,
		provider_name text COLLATE "C" NOT NULL,
		provider_type text COLLATE "C" NOT NULL,
		status        int NOT NULL,
		search        text COLLATE "C" NOT NULL,
		head          json NOT NULL,
		bodies        bytea,
		request_body  bytea
	);
	CREATE INDEX mg_audit_entries_session ON mg_audit_entries (session_id, id);
	CREATE INDEX mg_audit_entries_user_path ON mg_audit_entries (user_path, id);
	CREATE INDEX mg_audit_entries_req_model ON mg_audit_entries (req_model, id);
	CREATE INDEX mg_audit_entries_res_model ON mg_audit_entries (res_model, id);
	CREATE INDEX mg_audit_entries_provider_name ON mg_audit_entries (provider_name, id);
	CREATE INDEX mg_audit_entries_provider_type ON mg_audit_entries (provider_type, id);
	CREATE INDEX mg_audit_entries_status ON mg_audit_entries (status, id);
	CREATE TABLE mg_audit_hours (
		hour          timestamptz NOT NULL,
		provider      text COLLATE "C" NOT NULL,
		requests      bigint NOT NULL,
		status_2xx    bigint NOT NULL,
		status_4xx    bigint NOT NULL,
		status_5xx    bigint NOT NULL,
		status_other  bigint NOT NULL,
		duration_ns   bigint NOT NULL,
		latency_count bigint NOT NULL,
		latency_ns    bigint NOT NULL,
		PRIMARY KEY (hour, provider)
	);
	CREATE TABLE mg_usage_records (
		id        bytea PRIMARY KEY,
		ts        timestamptz NOT NULL,
		user_path text COLLATE "C" NOT NULL,
		record    json NOT NULL
	);
	CREATE TABLE mg_usage_hours (
		start        timestamptz NOT NULL,
		user_path    text COLLATE "C" NOT NULL,
		provider     text COLLATE "C" NOT NULL,
		model        text COLLATE "C" NOT NULL,
		requests     bigint NOT NULL,
		cache_hits   bigint NOT NULL,
		unpriced     bigint NOT NULL,
		input_tokens bigint NOT NULL,
		output_tokens bigint NOT NULL,
		total_tokens bigint NOT NULL,
		cached_input_tokens bigint NOT NULL,
		cache_write_input_tokens bigint NOT NULL,
		reasoning_tokens bigint NOT NULL,
		cost         double precision NOT NULL,
		PRIMARY KEY (start, user_path, provider, model)
	);
	CREATE TABLE mg_usage_days (LIKE mg_usage_hours INCLUDING ALL);
	CREATE TABLE mg_usage_sessions (
		user_path    text COLLATE "C" NOT NULL,
		session_id   text COLLATE "C" NOT NULL,
		first_seen   timestamptz NOT NULL,
		last_seen    timestamptz NOT NULL,
		requests     bigint NOT NULL,
		cache_hits   bigint NOT NULL,
		input_tokens bigint NOT NULL,
		output_tokens bigint NOT NULL,
		total_tokens bigint NOT NULL,
		cached_input_tokens bigint NOT NULL,
		cache_write_input_tokens bigint NOT NULL,
		reasoning_tokens bigint NOT NULL,
		cost         double precision NOT NULL,
		models       text[] COLLATE "C" NOT NULL,
		PRIMARY KEY (user_path, session_id)
	);
	CREATE INDEX mg_usage_sessions_recent ON mg_usage_sessions (last_seen, user_path, session_id);`,
	// Version 2 indexes the search text by trigrams, so that a search
	// reads the matching entries instead of every entry. It needs the
	// pg_trgm extension (in PostgreSQL's contrib, trusted since
	// PostgreSQL 13); where it is missing or cannot be created, searches
	// scan the entries.
	`DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_trgm') THEN
		BEGIN
			EXECUTE 'CREATE EXTENSION IF NOT EXISTS pg_trgm';
			EXECUTE 'CREATE INDEX mg_audit_entries_search ON mg_audit_entries USING gin (search gin_trgm_ops)';
		EXCEPTION WHEN insufficient_privilege OR undefined_file OR feature_not_supported THEN
			RAISE NOTICE 'audit search is not indexed: %', SQLERRM;
		END;
	END IF;
END $$`,
	// Version 3 keeps the cost sums of the aggregate and session rows in
	// whole billionths of a USD (catalog.Nanos), so that they add up
	// exactly; the float sums stored before are rounded to them (a sum
	// too large for bigint stays at its largest value, as the sums
	// saturate).
	costNanosMigration("mg_usage_hours")+costNanosMigration("mg_usage_days")+costNanosMigration("mg_usage_sessions"),
	// Version 4 adds the usage breakdown rows: usage records summed per
	// hour (and per day and month) × user path, key id, provider, model and
	// endpoint. Records stored before have no rows: the breakdown starts
	// with the upgrade.
	`CREATE TABLE mg_usage_breakdown_hours (
		start     timestamptz NOT NULL,
		user_path text COLLATE "C" NOT NULL,
		key_id    text COLLATE "C" NOT NULL,
		provider  text COLLATE "C" NOT NULL,
		model     text COLLATE "C" NOT NULL,
		endpoint  text COLLATE "C" NOT NULL,
		`+breakdownColumnDefs+`
		PRIMARY KEY (start, user_path, key_id, provider, model, endpoint)
	);
	CREATE TABLE mg_usage_breakdown_days (LIKE mg_usage_breakdown_hours INCLUDING ALL);
	CREATE TABLE mg_usage_breakdown_months (LIKE mg_usage_breakdown_hours INCLUDING ALL);`,
	// Version 5 names, on every usage record, the transaction that wrote
	// it (xact), so that a budget rebuilt from the records at one snapshot
	// can tell later which requests that snapshot counted (UsageSnapshot,
	// CountedIn). Records stored before read NULL: committed before any
	// snapshot taken after the upgrade.
	`ALTER TABLE mg_usage_records ADD COLUMN xact xid8;
	ALTER TABLE mg_usage_records ALTER COLUMN xact SET DEFAULT pg_current_xact_id();`,
	// Version 6 compresses the stored bodies with LZ4 instead of
	// PostgreSQL's default pglz: on 64 KiB of prompt text pglz costs the
	// server about 300 µs per entry, LZ4 about 30. Entries written before
	// keep their pglz bodies (both read back the same). A server built
	// without LZ4 (or before PostgreSQL 14) keeps pglz.
	`DO $$
BEGIN
	EXECUTE 'ALTER TABLE mg_audit_entries ALTER COLUMN bodies SET COMPRESSION lz4, ALTER COLUMN request_body SET COMPRESSION lz4';
EXCEPTION WHEN feature_not_supported OR syntax_error OR invalid_parameter_value THEN
	RAISE NOTICE 'audit bodies are compressed with pglz: %', SQLERRM;
END $$`,
)

// costNanosMigration is the change of version 3 for one table: its cost
// column, double precision USD, becomes cost_nanos, bigint Nanos.
func costNanosMigration(table string) string {
	return `ALTER TABLE ` + table + ` RENAME COLUMN cost TO cost_nanos;
	ALTER TABLE ` + table + ` ALTER COLUMN cost_nanos TYPE bigint USING
		CASE WHEN cost_nanos >= 9223372036 THEN 9223372036854775807 ELSE round(cost_nanos * 1e9)::bigint END;
	`
}
