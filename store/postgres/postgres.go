// Package postgres is flexd's PostgreSQL history store, on a pgx v5 pool the
// caller builds (in cmd/flexd) and closes. It also applies the schema in
// package migrations (see Migrator).
//
// Every save is one statement (so one round trip and one transaction) that
// advances the cluster's state row only from the epoch the caller read and
// writes the epoch, its allocations and the new state together; that guarded
// update plus the (cluster, epoch) primary key are what stop two replicas
// from losing an update. Errors are
// translated at this boundary: pgx.ErrNoRows becomes store.ErrNotFound and
// unique violations store.ErrConflict; times come back in UTC.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flexd/flexd/store"
)

// PostgreSQL error codes this package reacts to.
const (
	codeUniqueViolation      = "23505"
	codeSerializationFailure = "40001"
	codeDeadlockDetected     = "40P01"
)

// saveAttempts bounds SaveEpoch's retries. A retry is needed only when two
// writers create the same cluster's first rows at once (the loser's insert
// fails on the primary key instead of waiting on a row lock), or on a
// serialization failure from a SERIALIZABLE database such as CockroachDB.
const saveAttempts = 3

// streamBatch is how many epochs StreamEpochs reads per query.
const streamBatch = 256

// Store is the PostgreSQL history store. It is safe for concurrent use.
type Store struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// New returns a Store on pool, which must have the migrations applied
// (see Migrate). The Store does not close the pool.
func New(pool *pgxpool.Pool) *Store {
	return &Store{pool: pool, now: time.Now}
}

// recordColumns reads a whole record, allocations included, as one row.
const recordColumns = `e.cluster, e.epoch, e.decision_id, e.request_hash, e.request, e.decision, e.state, e.created_at,
	e.alloc_jobs, e.alloc_phases, e.alloc_slots, e.alloc_reasons`

// scanRecord reads a row selected with recordColumns.
func scanRecord(row pgx.Row) (store.Record, error) {
	var (
		r                     store.Record
		jobs, phases, reasons []string
		slots                 []int32
		request, decision     []byte
		state                 []byte
	)
	// The bodies are scanned as bytes, each the row's own copy.
	if err := row.Scan(&r.Cluster, &r.Epoch, &r.DecisionID, &r.RequestHash, &request, &decision, &state, &r.CreatedAt,
		&jobs, &phases, &slots, &reasons); err != nil {
		return store.Record{}, err // callers wrap, and map ErrNoRows
	}
	r.Request, r.Decision = request, decision
	if state != nil {
		r.State = state
	}
	r.CreatedAt = r.CreatedAt.UTC()
	if len(phases) != len(jobs) || len(slots) != len(jobs) || len(reasons) != len(jobs) {
		return store.Record{}, fmt.Errorf("epoch %d: allocation arrays of unequal lengths %d, %d, %d, %d",
			r.Epoch, len(jobs), len(phases), len(slots), len(reasons))
	}
	if len(jobs) > 0 { // as saved: an epoch without allocations has none
		r.Allocations = make([]store.Allocation, len(jobs))
		for i := range jobs {
			r.Allocations[i] = store.Allocation{JobID: jobs[i], Phase: phases[i], Slots: int(slots[i]), Reason: reasons[i]}
		}
	}
	return r, nil
}

// StartEpoch reads, in one round trip, the cluster's state and the record
// of (cluster, epoch) if it is stored: what the API needs before deciding.
func (s *Store) StartEpoch(ctx context.Context, cluster string, epoch int64) (store.Start, error) {
	var out store.Start
	b := &pgx.Batch{}
	b.Queue(`SELECT epoch, state FROM cluster_state WHERE cluster = $1`, cluster)
	b.Queue(`SELECT `+recordColumns+` FROM epochs e WHERE e.cluster = $1 AND e.epoch = $2`, cluster, epoch)
	br := s.pool.SendBatch(ctx, b)
	var state []byte
	err := br.QueryRow().Scan(&out.State.Epoch, &state)
	switch {
	case err == nil:
		out.State.Found = true
		if state != nil {
			out.State.State = state
		}
	case !errors.Is(err, pgx.ErrNoRows):
		return store.Start{}, errors.Join(fmt.Errorf("start epoch %d of cluster %q: reading state: %w", epoch, cluster, err), br.Close())
	}
	rec, err := scanRecord(br.QueryRow())
	switch {
	case err == nil:
		out.Stored = &rec
	case !errors.Is(err, pgx.ErrNoRows):
		return store.Start{}, errors.Join(fmt.Errorf("start epoch %d of cluster %q: reading stored epoch: %w", epoch, cluster, err), br.Close())
	}
	if err := br.Close(); err != nil {
		return store.Start{}, fmt.Errorf("start epoch %d of cluster %q: %w", epoch, cluster, err)
	}
	return out, nil
}

// saveSQL writes an epoch in one statement, so one round trip and one
// (implicit) transaction: it advances the cluster's state row from
// prevStateEpoch ($9) to the new epoch, creating the row when prevStateEpoch
// is 0 and there is none, and inserts the epoch only if that succeeded.
// The UPDATE's WHERE is re-checked after waiting on a concurrent writer's
// row lock (READ COMMITTED), and a concurrent first insert makes ON
// CONFLICT DO NOTHING wait and then do nothing, so two writers can never
// both advance the same state. It returns whether the epoch was written;
// when not, SaveEpoch finds out why.
const saveSQL = `WITH upd AS (
	UPDATE cluster_state SET epoch = $2, state = $7, updated_at = $8
	WHERE cluster = $1 AND epoch = $9 AND epoch < $2
	RETURNING 1
), ins AS (
	INSERT INTO cluster_state (cluster, epoch, state, updated_at)
	SELECT $1, $2, $7, $8 WHERE $9 = 0
	ON CONFLICT (cluster) DO NOTHING
	RETURNING 1
), ep AS (
	INSERT INTO epochs (cluster, epoch, decision_id, request_hash, request, decision, state, created_at,
	                    alloc_jobs, alloc_phases, alloc_slots, alloc_reasons)
	SELECT $1, $2, $3, $4, $5, $6, $7, $8, $10, $11, $12, $13
	WHERE EXISTS (SELECT 1 FROM upd) OR EXISTS (SELECT 1 FROM ins)
	RETURNING 1
)
SELECT EXISTS (SELECT 1 FROM ep)`

// SaveEpoch stores rec and advances the cluster's state from prevStateEpoch
// to rec.Epoch, atomically. If (cluster, epoch) is stored already it
// returns the stored record and replay true when the request hashes match,
// and store.ErrConflict otherwise; an epoch at or below the cluster's latest
// that was never stored (or was pruned) is store.ErrConflict; a cluster whose
// state is not at prevStateEpoch (absent counts as 0) is store.ErrStaleState.
// rec.CreatedAt defaults to now; allocations come back sorted by job and
// phase.
func (s *Store) SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error) {
	if err := rec.Validate(); err != nil {
		return store.Record{}, false, fmt.Errorf("save epoch: %w", err)
	}
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = s.now()
	}
	rec.CreatedAt = rec.CreatedAt.UTC().Truncate(time.Microsecond)
	rec.Allocations = slices.Clone(rec.Allocations)
	slices.SortFunc(rec.Allocations, func(a, b store.Allocation) int {
		if c := strings.Compare(a.JobID, b.JobID); c != 0 {
			return c
		}
		return strings.Compare(a.Phase, b.Phase)
	})
	for attempt := 1; ; attempt++ {
		out, replay, err := s.saveOnce(ctx, rec, prevStateEpoch)
		if err == nil {
			return out, replay, nil
		}
		if attempt < saveAttempts && retryable(err) && ctx.Err() == nil {
			continue
		}
		if isUniqueViolation(err) {
			err = fmt.Errorf("%w (%w)", store.ErrConflict, err)
		}
		return store.Record{}, false, fmt.Errorf("save epoch %d of cluster %q: %w", rec.Epoch, rec.Cluster, err)
	}
}

// saveOnce is one attempt at SaveEpoch: one round trip when the save goes
// through (the common case), and one more read to say why when it does not.
func (s *Store) saveOnce(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error) {
	n := len(rec.Allocations)
	jobs, phases, reasons := make([]string, n), make([]string, n), make([]string, n)
	slots := make([]int32, n)
	for i, a := range rec.Allocations {
		jobs[i], phases[i], slots[i], reasons[i] = a.JobID, a.Phase, int32(a.Slots), a.Reason
	}
	var saved bool
	err := s.pool.QueryRow(ctx, saveSQL,
		rec.Cluster, rec.Epoch, rec.DecisionID, rec.RequestHash, jsonArg(rec.Request), jsonArg(rec.Decision),
		jsonArg(rec.State), rec.CreatedAt, prevStateEpoch, jobs, phases, slots, reasons).Scan(&saved)
	if err != nil && !isUniqueViolation(err) {
		return store.Record{}, false, err
	}
	if err == nil && saved {
		return rec, false, nil
	}
	// Not written (or the epoch's key was taken): a retry, a clash or a
	// stale state. Nothing was written, so reading outside the statement
	// only decides which of them to report.
	st, rerr := s.StartEpoch(ctx, rec.Cluster, rec.Epoch)
	if rerr != nil {
		return store.Record{}, false, errors.Join(err, rerr)
	}
	latest, found := st.State.Epoch, st.State.Found
	switch {
	case st.Stored != nil && st.Stored.RequestHash == rec.RequestHash:
		return *st.Stored, true, nil
	case st.Stored != nil:
		return store.Record{}, false, fmt.Errorf("stored with a different request: %w", store.ErrConflict)
	case found && rec.Epoch <= latest:
		return store.Record{}, false, fmt.Errorf("at or below latest epoch %d and never stored: %w", latest, store.ErrConflict)
	case !found && prevStateEpoch != 0:
		return store.Record{}, false, fmt.Errorf("expected state at epoch %d, cluster has none: %w", prevStateEpoch, store.ErrStaleState)
	case found && latest != prevStateEpoch:
		return store.Record{}, false, fmt.Errorf("expected state at epoch %d, found %d: %w", prevStateEpoch, latest, store.ErrStaleState)
	case err != nil:
		return store.Record{}, false, err
	}
	// The state moved and came back between the statement and the read:
	// say stale, and the caller re-reads and decides again.
	return store.Record{}, false, fmt.Errorf("cluster state changed during the save: %w", store.ErrStaleState)
}

// jsonArg passes a JSON document to a text parameter as its bytes, without
// a copy to a string; nil becomes NULL. (The columns are text, not json:
// see migration 00002.)
func jsonArg(m json.RawMessage) any {
	if m == nil {
		return nil
	}
	return []byte(m)
}

// retryable reports whether a failed save transaction may succeed if run
// again: a lost race to create a cluster's first rows, or a serialization
// failure.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case codeSerializationFailure, codeDeadlockDetected:
		return true
	case codeUniqueViolation:
		return pgErr.TableName == "epochs" || pgErr.TableName == "cluster_state"
	}
	return false
}

func isUniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == codeUniqueViolation
}

// GetEpoch returns one stored epoch, or store.ErrNotFound.
func (s *Store) GetEpoch(ctx context.Context, cluster string, epoch int64) (store.Record, error) {
	r, err := scanRecord(s.pool.QueryRow(ctx, `SELECT `+recordColumns+` FROM epochs e WHERE e.cluster = $1 AND e.epoch = $2`, cluster, epoch))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Record{}, fmt.Errorf("epoch %d of cluster %q: %w", epoch, cluster, store.ErrNotFound)
	}
	if err != nil {
		return store.Record{}, fmt.Errorf("get epoch %d of cluster %q: %w", epoch, cluster, err)
	}
	return r, nil
}

// ListEpochs returns one page of a cluster's stored epochs, newest first,
// and the cursor for the next page (nil on the last page): pass it back as
// q.Before. A job filter uses the GIN index on alloc_jobs.
func (s *Store) ListEpochs(ctx context.Context, cluster string, q store.Query) ([]store.Record, *int64, error) {
	limit := q.PageSize()
	where := []string{"e.cluster = $1"}
	args := []any{cluster}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "$?", "$"+strconv.Itoa(len(args))))
	}
	if q.From != nil {
		add("e.epoch >= $?", *q.From)
	}
	if q.To != nil {
		add("e.epoch <= $?", *q.To)
	}
	if q.Before != nil {
		add("e.epoch < $?", *q.Before)
	}
	if q.JobID != "" {
		add("e.alloc_jobs @> ARRAY[$?::text]", q.JobID)
	}
	args = append(args, limit+1) // one more than a page says whether there is a next
	sql := `SELECT ` + recordColumns + ` FROM epochs e WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY e.epoch DESC LIMIT $` + strconv.Itoa(len(args))
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("list epochs of cluster %q: %w", cluster, err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Record, error) { return scanRecord(row) })
	if err != nil {
		return nil, nil, fmt.Errorf("list epochs of cluster %q: %w", cluster, err)
	}
	if len(out) > limit {
		out = out[:limit]
		next := out[limit-1].Epoch
		return out, &next, nil
	}
	return out, nil, nil
}

// StreamEpochs calls fn with each stored epoch of the cluster in [from, to]
// (nil: unbounded), oldest first, stopping at fn's first error. It reads
// streamBatch epochs per query, keyed on the last epoch seen, so memory stays
// bounded and no connection is held while fn writes to a slow client.
func (s *Store) StreamEpochs(ctx context.Context, cluster string, from, to *int64, fn func(store.Record) error) error {
	after := int64(-1) // epochs are >= 0
	if from != nil {
		after = *from - 1
	}
	upper := int64(1<<63 - 1)
	if to != nil {
		upper = *to
	}
	for {
		rows, err := s.pool.Query(ctx, `SELECT `+recordColumns+` FROM epochs e
			WHERE e.cluster = $1 AND e.epoch > $2 AND e.epoch <= $3 ORDER BY e.epoch LIMIT $4`,
			cluster, after, upper, streamBatch)
		if err != nil {
			return fmt.Errorf("stream epochs of cluster %q: %w", cluster, err)
		}
		batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (store.Record, error) { return scanRecord(row) })
		if err != nil {
			return fmt.Errorf("stream epochs of cluster %q: %w", cluster, err)
		}
		for _, r := range batch {
			if err := fn(r); err != nil {
				return fmt.Errorf("stream epochs of cluster %q: epoch %d: %w", cluster, r.Epoch, err)
			}
		}
		if len(batch) < streamBatch {
			return nil
		}
		after = batch[len(batch)-1].Epoch
	}
}

// LatestState returns the cluster's state as last saved; Found is false for
// a cluster never saved.
func (s *Store) LatestState(ctx context.Context, cluster string) (store.State, error) {
	st := store.State{Found: true}
	err := s.pool.QueryRow(ctx, `SELECT epoch, state FROM cluster_state WHERE cluster = $1`, cluster).Scan(&st.Epoch, &st.State)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.State{}, nil
	}
	if err != nil {
		return store.State{}, fmt.Errorf("latest state of cluster %q: %w", cluster, err)
	}
	return st, nil
}

// Prune deletes the epochs saved before olderThan (their allocations are
// on the same rows), batch at a time (default store.DefaultPruneBatchSize) so no
// statement holds locks for long, and returns how many it deleted. Cluster
// state rows are kept: they carry the latest epoch number.
func (s *Store) Prune(ctx context.Context, olderThan time.Time, batch int) (int, error) {
	if batch <= 0 {
		batch = store.DefaultPruneBatchSize
	}
	total := 0
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM epochs e USING (
				SELECT cluster, epoch FROM epochs WHERE created_at < $1 ORDER BY created_at LIMIT $2
			) d WHERE e.cluster = d.cluster AND e.epoch = d.epoch`, olderThan.UTC(), batch)
		if err != nil {
			return total, fmt.Errorf("prune epochs before %s: %w", olderThan.UTC().Format(time.RFC3339), err)
		}
		n := int(tag.RowsAffected())
		total += n
		if n < batch {
			return total, nil
		}
	}
}

// CreateToken stores a token; a hash already stored is store.ErrConflict.
func (s *Store) CreateToken(ctx context.Context, t store.Token) error {
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	if t.Created.IsZero() {
		t.Created = s.now()
	}
	_, err := s.pool.Exec(ctx, `INSERT INTO tokens (hash, cluster, admin, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		t.Hash, t.Cluster, t.Admin, t.Created.UTC(), nullTime(t.Expires))
	if isUniqueViolation(err) {
		return fmt.Errorf("create token: %w (%w)", store.ErrConflict, err)
	}
	if err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	return nil
}

// LookupToken returns the token with the given hash, or store.ErrNotFound.
func (s *Store) LookupToken(ctx context.Context, hash string) (store.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `SELECT `+tokenColumns+` FROM tokens WHERE hash = $1`, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Token{}, fmt.Errorf("lookup token: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Token{}, fmt.Errorf("lookup token: %w", err)
	}
	return t, nil
}

// tokenColumns are the columns scanToken reads, in its order.
const tokenColumns = `hash, cluster, admin, created_at, last_used_at, expires_at, revoked_at`

// scanToken reads one row of tokenColumns.
func scanToken(row pgx.Row) (store.Token, error) {
	var t store.Token
	var used, expires, revoked *time.Time
	if err := row.Scan(&t.Hash, &t.Cluster, &t.Admin, &t.Created, &used, &expires, &revoked); err != nil {
		return store.Token{}, err
	}
	t.Created = t.Created.UTC()
	t.LastUsed, t.Expires, t.Revoked = utcOrZero(used), utcOrZero(expires), utcOrZero(revoked)
	return t, nil
}

func utcOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

// nullTime is nil for the zero time (SQL NULL), else t in UTC.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}

// ListTokens returns every token, revoked and expired ones included,
// oldest first (by creation, then hash).
func (s *Store) ListTokens(ctx context.Context) ([]store.Token, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+tokenColumns+` FROM tokens ORDER BY created_at, hash`)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	out := []store.Token{}
	for rows.Next() {
		t, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// RevokeToken marks the token revoked at at (a token revoked already keeps
// its first time) and returns it; an unknown hash is store.ErrNotFound.
// The row stays, so revoking the last token leaves access control on.
func (s *Store) RevokeToken(ctx context.Context, hash string, at time.Time) (store.Token, error) {
	t, err := scanToken(s.pool.QueryRow(ctx, `UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2)
		WHERE hash = $1 RETURNING `+tokenColumns, hash, at.UTC()))
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Token{}, fmt.Errorf("revoke token: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Token{}, fmt.Errorf("revoke token: %w", err)
	}
	return t, nil
}

// TouchToken records that the token was used at at (kept only when later
// than the time recorded); an unknown hash is ignored.
func (s *Store) TouchToken(ctx context.Context, hash string, at time.Time) error {
	_, err := s.pool.Exec(ctx, `UPDATE tokens SET last_used_at = $2
		WHERE hash = $1 AND (last_used_at IS NULL OR last_used_at < $2)`, hash, at.UTC())
	if err != nil {
		return fmt.Errorf("touch token: %w", err)
	}
	return nil
}

// ListClusters returns every cluster with a saved epoch, by name.
func (s *Store) ListClusters(ctx context.Context) ([]store.ClusterInfo, error) {
	rows, err := s.pool.Query(ctx, `SELECT cluster, epoch, updated_at FROM cluster_state ORDER BY cluster`)
	if err != nil {
		return nil, fmt.Errorf("list clusters: %w", err)
	}
	defer rows.Close()
	out := []store.ClusterInfo{}
	for rows.Next() {
		var c store.ClusterInfo
		if err := rows.Scan(&c.Name, &c.LastEpoch, &c.Updated); err != nil {
			return nil, fmt.Errorf("list clusters: %w", err)
		}
		c.Updated = c.Updated.UTC()
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list clusters: %w", err)
	}
	return out, nil
}

// HasTokens reports whether any token is stored.
func (s *Store) HasTokens(ctx context.Context) (bool, error) {
	var ok bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM tokens)`).Scan(&ok); err != nil {
		return false, fmt.Errorf("has tokens: %w", err)
	}
	return ok, nil
}

// Ping checks that PostgreSQL answers, for /readyz.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	return nil
}
