// Package postgres is flexd's PostgreSQL history store, on a pgx v5 pool the
// caller builds (in cmd/flexd) and closes. It also applies the schema in
// package migrations (see Migrator).
//
// Every save is one transaction that locks the cluster's state row, checks
// idempotency and the epoch guard, and writes the epoch, its allocations and
// the new state together; that row lock plus the (cluster, epoch) primary
// key are what stop two replicas from losing an update. Errors are
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

// recordColumns reads a whole record, allocations included, as one row:
// the allocations are aggregated per epoch, in the byte order of job id and
// phase (COLLATE "C", matching Go's string comparison in store/memory).
const recordColumns = `e.cluster, e.epoch, e.decision_id, e.request_hash, e.request, e.decision, e.state, e.created_at,
	COALESCE((SELECT jsonb_agg(jsonb_build_array(a.job_id, a.phase, a.slots, a.reason)
	                           ORDER BY a.job_id COLLATE "C", a.phase COLLATE "C")
	          FROM epoch_allocations a WHERE a.cluster = e.cluster AND a.epoch = e.epoch), '[]'::jsonb)`

// scanRecord reads a row selected with recordColumns.
func scanRecord(row pgx.Row) (store.Record, error) {
	var (
		r      store.Record
		allocs []json.RawMessage
	)
	if err := row.Scan(&r.Cluster, &r.Epoch, &r.DecisionID, &r.RequestHash, &r.Request, &r.Decision, &r.State, &r.CreatedAt, &allocs); err != nil {
		return store.Record{}, err // callers wrap, and map ErrNoRows
	}
	r.CreatedAt = r.CreatedAt.UTC()
	r.Allocations = make([]store.Allocation, 0, len(allocs))
	for _, raw := range allocs {
		var a store.Allocation
		fields := []any{&a.JobID, &a.Phase, &a.Slots, &a.Reason}
		if err := json.Unmarshal(raw, &fields); err != nil {
			return store.Record{}, fmt.Errorf("decoding allocation of epoch %d: %w", r.Epoch, err)
		}
		r.Allocations = append(r.Allocations, a)
	}
	if len(r.Allocations) == 0 {
		r.Allocations = nil // as saved: an epoch without allocations has none
	}
	return r, nil
}

// SaveEpoch stores rec and advances the cluster's state from prevStateEpoch
// to rec.Epoch, in one transaction. If (cluster, epoch) is stored already it
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

// saveOnce is one attempt at SaveEpoch: four round trips (begin, a batch
// that locks and reads, a batch that writes, commit) whatever the number of
// jobs, which is what keeps hundreds of saves a second cheap.
func (s *Store) saveOnce(ctx context.Context, rec store.Record, prevStateEpoch int64) (out store.Record, replay bool, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// Lock the state row first: a concurrent save of this cluster waits
		// here. The read after it runs once the lock is held, with a fresh
		// snapshot (READ COMMITTED), so it sees everything the winner
		// committed.
		reads := &pgx.Batch{}
		reads.Queue(`SELECT epoch FROM cluster_state WHERE cluster = $1 FOR UPDATE`, rec.Cluster)
		reads.Queue(`SELECT `+recordColumns+` FROM epochs e WHERE e.cluster = $1 AND e.epoch = $2`, rec.Cluster, rec.Epoch)
		br := tx.SendBatch(ctx, reads)
		var latest int64
		found := true
		err := br.QueryRow().Scan(&latest)
		if errors.Is(err, pgx.ErrNoRows) {
			found = false
		} else if err != nil {
			return errors.Join(fmt.Errorf("locking cluster state: %w", err), br.Close())
		}
		stored, storedErr := scanRecord(br.QueryRow())
		if err := br.Close(); err != nil {
			return fmt.Errorf("reading cluster state: %w", err)
		}
		switch {
		case storedErr == nil:
			if stored.RequestHash != rec.RequestHash {
				return fmt.Errorf("stored with a different request: %w", store.ErrConflict)
			}
			out, replay = stored, true
			return nil
		case !errors.Is(storedErr, pgx.ErrNoRows):
			return fmt.Errorf("reading stored epoch: %w", storedErr)
		}

		switch {
		case found && rec.Epoch <= latest:
			return fmt.Errorf("at or below latest epoch %d and never stored: %w", latest, store.ErrConflict)
		case !found && prevStateEpoch != 0:
			return fmt.Errorf("expected state at epoch %d, cluster has none: %w", prevStateEpoch, store.ErrStaleState)
		case found && latest != prevStateEpoch:
			return fmt.Errorf("expected state at epoch %d, found %d: %w", prevStateEpoch, latest, store.ErrStaleState)
		}

		writes := &pgx.Batch{}
		writes.Queue(`INSERT INTO epochs (cluster, epoch, decision_id, request_hash, request, decision, state, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			rec.Cluster, rec.Epoch, rec.DecisionID, rec.RequestHash, jsonArg(rec.Request), jsonArg(rec.Decision), jsonArg(rec.State), rec.CreatedAt)
		if n := len(rec.Allocations); n > 0 {
			// One statement for all jobs: columns as arrays, unnested.
			jobs, phases, reasons := make([]string, n), make([]string, n), make([]string, n)
			slots := make([]int32, n)
			for i, a := range rec.Allocations {
				jobs[i], phases[i], slots[i], reasons[i] = a.JobID, a.Phase, int32(a.Slots), a.Reason
			}
			writes.Queue(`INSERT INTO epoch_allocations (cluster, epoch, job_id, phase, slots, reason)
				SELECT $1, $2, u.job_id, u.phase, u.slots, u.reason
				FROM unnest($3::text[], $4::text[], $5::integer[], $6::text[]) AS u(job_id, phase, slots, reason)`,
				rec.Cluster, rec.Epoch, jobs, phases, slots, reasons)
		}
		if found {
			writes.Queue(`UPDATE cluster_state SET epoch = $2, state = $3, updated_at = $4 WHERE cluster = $1 AND epoch = $5`,
				rec.Cluster, rec.Epoch, jsonArg(rec.State), rec.CreatedAt, prevStateEpoch)
		} else {
			// A concurrent first save of this cluster makes this fail on the
			// primary key: SaveEpoch retries and then sees its row.
			writes.Queue(`INSERT INTO cluster_state (cluster, epoch, state, updated_at) VALUES ($1, $2, $3, $4)`,
				rec.Cluster, rec.Epoch, jsonArg(rec.State), rec.CreatedAt)
		}
		br = tx.SendBatch(ctx, writes)
		var tag pgconn.CommandTag
		for i := range writes.Len() {
			if tag, err = br.Exec(); err != nil {
				return errors.Join(fmt.Errorf("writing epoch (statement %d): %w", i+1, err), br.Close())
			}
		}
		if err := br.Close(); err != nil {
			return fmt.Errorf("writing epoch: %w", err)
		}
		if tag.RowsAffected() != 1 {
			// Unreachable while the row is locked; kept so that a change to
			// the locking cannot silently lose an update.
			return fmt.Errorf("updating cluster state: %w", store.ErrStaleState)
		}
		out = rec
		return nil
	})
	return out, replay, err
}

// jsonArg passes JSON to a jsonb parameter as text; nil becomes NULL.
func jsonArg(m json.RawMessage) any {
	if m == nil {
		return nil
	}
	return string(m)
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
// q.Before. A job filter walks the (cluster, job_id, epoch) index.
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
		add("EXISTS (SELECT 1 FROM epoch_allocations f WHERE f.cluster = e.cluster AND f.job_id = $? AND f.epoch = e.epoch)", q.JobID)
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

// Prune deletes the epochs saved before olderThan (their allocations
// cascade), batch at a time (default store.DefaultPruneBatchSize) so no
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
	_, err := s.pool.Exec(ctx, `INSERT INTO tokens (hash, cluster, admin, created_at) VALUES ($1, $2, $3, $4)`,
		t.Hash, t.Cluster, t.Admin, t.Created.UTC())
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
	var t store.Token
	err := s.pool.QueryRow(ctx, `SELECT hash, cluster, admin, created_at FROM tokens WHERE hash = $1`, hash).
		Scan(&t.Hash, &t.Cluster, &t.Admin, &t.Created)
	if errors.Is(err, pgx.ErrNoRows) {
		return store.Token{}, fmt.Errorf("lookup token: %w", store.ErrNotFound)
	}
	if err != nil {
		return store.Token{}, fmt.Errorf("lookup token: %w", err)
	}
	t.Created = t.Created.UTC()
	return t, nil
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
