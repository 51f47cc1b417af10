// Package resilient keeps flexd answering when PostgreSQL is away
// (docs/design.md, "When PostgreSQL is away"): a Store that wraps the
// database's and, when a save fails for a reason of the database's, appends
// the record to a local spool (package store/spool, fsynced before the
// answer goes out) instead of failing the epoch; serves the cluster's next
// epochs from the spooled state, idempotent retries from the spooled
// records, and the last known tokens; and drains the spool into the
// database, in order, once it answers again.
//
// While the spool holds anything every save goes to it, so that a cluster's
// epochs reach the database in the order they were decided. A drained
// record the database refuses (another body stored for that epoch, or a
// state that moved on without it) is kept aside in a second spool and
// reported, never overwritten.
package resilient

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/spool"
)

// Backend is the database store the resilient one wraps (store/postgres).
type Backend interface {
	SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error)
	GetEpoch(ctx context.Context, cluster string, epoch int64) (store.Record, error)
	ListEpochs(ctx context.Context, cluster string, q store.Query) ([]store.Record, *int64, error)
	StreamEpochs(ctx context.Context, cluster string, from, to *int64, fn func(store.Record) error) error
	LatestState(ctx context.Context, cluster string) (store.State, error)
	StartEpoch(ctx context.Context, cluster string, epoch int64) (store.Start, error)
	LookupToken(ctx context.Context, hash string) (store.Token, error)
	HasTokens(ctx context.Context) (bool, error)
	Ping(ctx context.Context) error
}

// Store is a Backend that spools what the database cannot take.
type Store struct {
	db        Backend
	dir       string
	sp        *spool.Spool
	aside     *spool.Spool
	log       *slog.Logger
	mu        sync.Mutex
	states    map[string]store.State // last state seen per cluster
	tokens    map[string]store.Token // tokens looked up while the database answered
	hasTokens *bool
	// degradedSince is when the spool last went from empty to holding
	// records; zero while it is empty.
	degradedSince time.Time
	drainErrors   int64
	drained       int64
}

// Config configures a Store.
type Config struct {
	// Dir is the spool's directory (created 0700); the records kept aside
	// go to its "aside" subdirectory.
	Dir string
	// MaxBytes bounds the spool (> 0): past it a save fails with an error
	// wrapping store.ErrUnavailable (the server's 503).
	MaxBytes int64
	// Logger receives one line per change of state; nil means slog.Default().
	Logger *slog.Logger
}

// New opens the spool in cfg.Dir (reading back what a previous process
// left, a torn tail cut off and logged) and wraps db.
func New(db Backend, cfg Config) (*Store, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	sp, rec, err := spool.Open(cfg.Dir, cfg.MaxBytes)
	if err != nil {
		return nil, err
	}
	if rec.DroppedBytes > 0 {
		log.Warn("spool: cut a damaged tail", "dir", cfg.Dir, "kept", rec.Entries, "dropped_bytes", rec.DroppedBytes, "reason", rec.Reason)
	}
	aside, arec, err := spool.Open(filepath.Join(cfg.Dir, "aside"), cfg.MaxBytes)
	if err != nil {
		sp.Close()
		return nil, err
	}
	if arec.DroppedBytes > 0 {
		log.Warn("spool: cut a damaged tail of the records kept aside", "kept", arec.Entries, "dropped_bytes", arec.DroppedBytes, "reason", arec.Reason)
	}
	s := &Store{db: db, sp: sp, aside: aside, log: log, dir: cfg.Dir, states: map[string]store.State{}, tokens: map[string]store.Token{}}
	if b, err := os.ReadFile(filepath.Join(cfg.Dir, tokensFile)); err == nil {
		// What the database said last, for a start while it is away.
		has := strings.TrimSpace(string(b)) == "yes"
		s.hasTokens = &has
	}
	if n := sp.Len(); n > 0 {
		s.degradedSince = time.Now()
		log.Warn("spool: records from a previous run wait for the database", "records", n, "bytes", sp.Bytes())
	}
	return s, nil
}

// Close closes the spools.
func (s *Store) Close() error {
	return errors.Join(s.sp.Close(), s.aside.Close())
}

// dbDown reports whether err is the database's failing rather than an
// answer about the request: the store's own errors are answers.
func dbDown(err error) bool {
	if err == nil {
		return false
	}
	for _, answer := range []error{store.ErrNotFound, store.ErrConflict, store.ErrStaleState, store.ErrInvalid, context.Canceled} {
		if errors.Is(err, answer) {
			return false
		}
	}
	return true
}

// Degraded reports whether records wait in the spool (the server's
// /readyz says "degraded").
func (s *Store) Degraded() bool { return s.sp.Len() > 0 }

// SpoolDepth is the records waiting for the database and the age of the
// oldest (httpapi.SpoolReporter, for /readyz).
func (s *Store) SpoolDepth() (int, time.Duration) {
	st := s.Status(time.Now())
	return st.Records, st.OldestAge
}

// Status is what /metrics and /readyz show of the spool.
type Status struct {
	Records     int
	Bytes       int64
	OldestAge   time.Duration
	Aside       int
	Drained     int64
	DrainErrors int64
}

// Status returns the spool's depth, size, the age of its oldest record
// (measured from now), the records kept aside and the drain's counters.
func (s *Store) Status(now time.Time) Status {
	st := Status{Records: s.sp.Len(), Bytes: s.sp.Bytes(), Aside: s.aside.Len()}
	if t, ok := s.sp.Oldest(); ok {
		st.OldestAge = now.Sub(t)
	}
	s.mu.Lock()
	st.Drained, st.DrainErrors = s.drained, s.drainErrors
	s.mu.Unlock()
	return st
}

func (s *Store) noteState(cluster string, st store.State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.states[cluster]; !ok || st.Epoch >= old.Epoch {
		s.states[cluster] = st
	}
}

// spoolState is the cluster's newest spooled state, if any.
func (s *Store) spoolState(cluster string) (store.State, bool) {
	e, ok := s.sp.Latest(cluster)
	if !ok {
		return store.State{}, false
	}
	return store.State{Epoch: e.Record.Epoch, Found: true, State: e.Record.State}, true
}

// SaveEpoch saves rec in the database, or spools it when the database
// cannot take it (or when records already wait, to keep their order). A
// spooled (cluster, epoch) with the same request hash is a replay; with
// another, store.ErrConflict.
func (s *Store) SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error) {
	if e, ok := s.sp.Find(rec.Cluster, rec.Epoch); ok {
		if e.Record.RequestHash == rec.RequestHash {
			return e.Record, true, nil
		}
		return store.Record{}, false, fmt.Errorf("epoch %d of %s is spooled with another request: %w", rec.Epoch, rec.Cluster, store.ErrConflict)
	}
	if s.sp.Len() == 0 {
		stored, replay, err := s.db.SaveEpoch(ctx, rec, prevStateEpoch)
		if !dbDown(err) {
			if err == nil && !replay {
				s.noteState(rec.Cluster, store.State{Epoch: rec.Epoch, Found: true, State: rec.State})
			}
			return stored, replay, err
		}
		s.log.Warn("spool: the database failed a save; spooling", "cluster", rec.Cluster, "epoch", rec.Epoch, "error", err)
	}
	if err := rec.Validate(); err != nil {
		return store.Record{}, false, err
	}
	if err := s.sp.Append(spool.Entry{Record: rec, PrevStateEpoch: prevStateEpoch}); err != nil {
		if errors.Is(err, spool.ErrFull) {
			return store.Record{}, false, fmt.Errorf("%w: %w", store.ErrUnavailable, err)
		}
		return store.Record{}, false, fmt.Errorf("spooling epoch %d of %s: %w", rec.Epoch, rec.Cluster, err)
	}
	s.mu.Lock()
	if s.degradedSince.IsZero() {
		s.degradedSince = time.Now()
	}
	s.mu.Unlock()
	return rec, false, nil
}

// StartEpoch reads what deciding an epoch needs: the epoch's record if it
// is stored or spooled, and the cluster's newest state, spooled or stored.
// With the database away, a cluster with nothing spooled decides from the
// last state this process saw of it, or from none after a restart.
func (s *Store) StartEpoch(ctx context.Context, cluster string, epoch int64) (store.Start, error) {
	spooled, hasSpooled := s.spoolState(cluster)
	if e, ok := s.sp.Find(cluster, epoch); ok {
		rec := e.Record
		return store.Start{State: spooled, Stored: &rec}, nil
	}
	if hasSpooled && epoch > spooled.Epoch {
		// While the cluster's epochs are spooled every later one is too:
		// the database cannot hold this one, and need not be asked.
		return store.Start{State: spooled}, nil
	}
	start, err := s.db.StartEpoch(ctx, cluster, epoch)
	if dbDown(err) {
		if hasSpooled {
			return store.Start{State: spooled}, nil
		}
		s.mu.Lock()
		st := s.states[cluster]
		s.mu.Unlock()
		return store.Start{State: st}, nil
	}
	if err != nil {
		return start, err
	}
	if hasSpooled && spooled.Epoch > start.State.Epoch {
		start.State = spooled
	} else if start.State.Found {
		s.noteState(cluster, start.State)
	}
	return start, nil
}

// LatestState is the cluster's newest state, spooled or stored.
func (s *Store) LatestState(ctx context.Context, cluster string) (store.State, error) {
	if st, ok := s.spoolState(cluster); ok {
		return st, nil
	}
	st, err := s.db.LatestState(ctx, cluster)
	if dbDown(err) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if known, ok := s.states[cluster]; ok {
			return known, nil
		}
	}
	return st, err
}

// GetEpoch returns a spooled epoch, or the database's.
func (s *Store) GetEpoch(ctx context.Context, cluster string, epoch int64) (store.Record, error) {
	if e, ok := s.sp.Find(cluster, epoch); ok {
		return e.Record, nil
	}
	rec, err := s.db.GetEpoch(ctx, cluster, epoch)
	return rec, unavailable(err, "reading an epoch")
}

// unavailable turns the database's failing into store.ErrUnavailable (the
// server's 503 with Retry-After), leaving answers about the request alone.
func unavailable(err error, doing string) error {
	if dbDown(err) {
		return fmt.Errorf("%w: %s: %w", store.ErrUnavailable, doing, err)
	}
	return err
}

// pending refuses a history read while some of the cluster's epochs wait
// in the spool: a page without them would look complete and is not. The
// drain takes seconds once the database answers.
func (s *Store) pending(cluster string) error {
	if _, ok := s.sp.Latest(cluster); ok {
		return fmt.Errorf("%w: epochs of %s are spooled, waiting for the database; the history is incomplete until they are drained", store.ErrUnavailable, cluster)
	}
	return nil
}

// ListEpochs reads the database; while epochs of the cluster are spooled
// it says so (store.ErrUnavailable) rather than answer a page without
// them. GetEpoch finds a spooled epoch meanwhile.
func (s *Store) ListEpochs(ctx context.Context, cluster string, q store.Query) ([]store.Record, *int64, error) {
	if err := s.pending(cluster); err != nil {
		return nil, nil, err
	}
	recs, next, err := s.db.ListEpochs(ctx, cluster, q)
	return recs, next, unavailable(err, "listing epochs")
}

// StreamEpochs is ListEpochs' export: refused while epochs are spooled.
func (s *Store) StreamEpochs(ctx context.Context, cluster string, from, to *int64, fn func(store.Record) error) error {
	if err := s.pending(cluster); err != nil {
		return err
	}
	return unavailable(s.db.StreamEpochs(ctx, cluster, from, to, fn), "exporting epochs")
}

// LookupToken looks a token up in the database and remembers it; with the
// database away, a token seen before is still known. An unknown one is
// then store.ErrUnavailable: refusing it could lock a legitimate caller
// out, accepting it would fail open.
func (s *Store) LookupToken(ctx context.Context, hash string) (store.Token, error) {
	t, err := s.db.LookupToken(ctx, hash)
	if err == nil {
		s.mu.Lock()
		s.tokens[hash] = t
		s.mu.Unlock()
		return t, nil
	}
	if !dbDown(err) {
		return t, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if known, ok := s.tokens[hash]; ok {
		return known, nil
	}
	return store.Token{}, fmt.Errorf("%w: looking up a token: %w", store.ErrUnavailable, err)
}

// HasTokens asks the database and remembers the answer; with the database
// away the last answer stands, and with none (a start during an outage)
// the answer is store.ErrUnavailable.
func (s *Store) HasTokens(ctx context.Context) (bool, error) {
	ok, err := s.db.HasTokens(ctx)
	if err == nil {
		s.mu.Lock()
		changed := s.hasTokens == nil || *s.hasTokens != ok
		s.hasTokens = &ok
		s.mu.Unlock()
		if changed {
			s.rememberTokens(ok)
		}
		return ok, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if dbDown(err) && s.hasTokens != nil {
		return *s.hasTokens, nil
	}
	return false, fmt.Errorf("%w: checking for tokens: %w", store.ErrUnavailable, err)
}

// TouchToken records a token's use in the database when the backend keeps
// it (store/postgres does); with the database away the use is not
// recorded (ErrUnavailable), and the token keeps working from memory.
func (s *Store) TouchToken(ctx context.Context, hash string, at time.Time) error {
	tt, ok := s.db.(interface {
		TouchToken(ctx context.Context, hash string, at time.Time) error
	})
	if !ok {
		return nil
	}
	return unavailable(tt.TouchToken(ctx, hash, at), "recording a token's use")
}

// ListClusters is the database's list of clusters; with the database away
// it is store.ErrUnavailable.
func (s *Store) ListClusters(ctx context.Context) ([]store.ClusterInfo, error) {
	cl, ok := s.db.(interface {
		ListClusters(ctx context.Context) ([]store.ClusterInfo, error)
	})
	if !ok {
		return nil, fmt.Errorf("%w: the database store cannot list clusters", store.ErrUnavailable)
	}
	out, err := cl.ListClusters(ctx)
	return out, unavailable(err, "listing clusters")
}

// Ping pings the database.
func (s *Store) Ping(ctx context.Context) error { return s.db.Ping(ctx) }

// DrainOnce writes the spooled records to the database in order, as far as
// it takes them, and drops what it stored from the spool. A record stored
// already with the same body is skipped; one the database refuses is kept
// aside and reported. It returns the records drained and the database's
// error that stopped it, if any.
func (s *Store) DrainOnce(ctx context.Context) (int, error) {
	entries := s.sp.Entries()
	done := 0
	var stop error
	for _, e := range entries {
		err := s.saveDrained(ctx, e)
		if dbDown(err) {
			stop = err
			break
		}
		if err != nil {
			s.log.Error("spool: the database refused a spooled record; kept aside", "cluster", e.Record.Cluster, "epoch", e.Record.Epoch, "error", err)
			if aerr := s.aside.Append(e); aerr != nil {
				// Nothing is dropped that was not kept somewhere.
				stop = fmt.Errorf("keeping a refused record aside: %w", aerr)
				break
			}
		}
		done++
	}
	if done > 0 {
		if err := s.sp.Drop(done); err != nil {
			return 0, fmt.Errorf("dropping drained records: %w", err)
		}
	}
	s.mu.Lock()
	s.drained += int64(done)
	if stop != nil {
		s.drainErrors++
	}
	emptied := s.sp.Len() == 0 && !s.degradedSince.IsZero()
	since := s.degradedSince
	if emptied {
		s.degradedSince = time.Time{}
	}
	s.mu.Unlock()
	if emptied {
		s.log.Info("spool: drained; the database has the whole history again", "spooled_for", time.Since(since).Round(time.Millisecond).String())
	}
	return done, stop
}

// saveDrained saves one spooled record. The state it was decided from may
// be older than the database's when this process restarted during the
// outage and decided a cluster without its state: the record is then saved
// on the database's state, as long as that is older than the record.
func (s *Store) saveDrained(ctx context.Context, e spool.Entry) error {
	_, _, err := s.db.SaveEpoch(ctx, e.Record, e.PrevStateEpoch)
	if !errors.Is(err, store.ErrStaleState) {
		return err
	}
	st, serr := s.db.LatestState(ctx, e.Record.Cluster)
	if serr != nil {
		return serr
	}
	if st.Epoch >= e.Record.Epoch {
		return err
	}
	_, _, err = s.db.SaveEpoch(ctx, e.Record, st.Epoch)
	return err
}

// Drain drains the spool until ctx ends: at once, then every interval while
// the database is away or records wait, doubling the wait after each
// failure up to maxInterval.
func (s *Store) Drain(ctx context.Context, interval, maxInterval time.Duration) {
	wait := interval
	for {
		if s.sp.Len() > 0 {
			_, err := s.DrainOnce(ctx)
			switch {
			case err != nil && ctx.Err() == nil:
				s.log.Warn("spool: drain stopped; retrying", "records", s.sp.Len(), "in", wait.String(), "error", err)
				wait = min(2*wait, maxInterval)
			default:
				wait = interval
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// tokensFile remembers, in the spool's directory, whether the database had
// tokens when last asked: a process started while the database is away
// must not turn access control off (or on) by guessing.
const tokensFile = "has_tokens"

// rememberTokens writes tokensFile atomically; failing to is logged, not
// fatal: the answer is still known in memory.
func (s *Store) rememberTokens(has bool) {
	v := "no\n"
	if has {
		v = "yes\n"
	}
	tmp, err := os.CreateTemp(s.dir, tokensFile+".*")
	if err == nil {
		_, err = tmp.WriteString(v)
		err = errors.Join(err, tmp.Sync(), tmp.Close())
		if err == nil {
			err = os.Rename(tmp.Name(), filepath.Join(s.dir, tokensFile))
		}
		os.Remove(tmp.Name())
	}
	if err != nil {
		s.log.Warn("spool: could not remember whether tokens exist", "error", err)
	}
}
