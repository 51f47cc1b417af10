// Package memory is flexd's in-memory history store: what `flexd serve`
// uses when no database URL is given. It is bounded: it keeps at most
// Config.MaxEpochsPerCluster epochs of each cluster and Config.MaxEpochs in
// all, evicting the oldest (per cluster, the lowest epoch; in all, the
// earliest saved) to make room, so a long-running server neither grows
// without bound nor loses its newest history. A cluster's latest epoch
// number and state are never evicted, so the idempotency and state guards
// behave exactly as in store/postgres. Everything is lost at exit.
//
// A Store is safe for concurrent use; one mutex serialises writes, which is
// what makes the state guard atomic.
package memory

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/flexd/flexd/store"
)

// Defaults for Config's zero values.
const (
	DefaultMaxEpochsPerCluster = 10_000
	DefaultMaxEpochs           = 100_000
)

// Config bounds a Store. Zero values mean the defaults.
type Config struct {
	// MaxEpochsPerCluster caps the epochs kept per cluster (default
	// DefaultMaxEpochsPerCluster); the lowest epoch is evicted first.
	MaxEpochsPerCluster int
	// MaxEpochs caps the epochs kept across all clusters (default
	// DefaultMaxEpochs); the earliest saved is evicted first.
	MaxEpochs int
	// Now is the clock stamping records saved without CreatedAt (default
	// time.Now).
	Now func() time.Time
}

// Store keeps history in memory. Create it with New.
type Store struct {
	maxPerCluster int
	maxTotal      int
	now           func() time.Time

	mu       sync.RWMutex
	clusters map[string]*cluster
	// order lists saved epochs oldest first for global eviction; entries
	// already evicted or pruned are skipped lazily, and order[:head] is dead.
	order  []key
	head   int
	total  int
	tokens map[string]store.Token
}

type key struct {
	cluster string
	epoch   int64
}

type cluster struct {
	// epochs are ascending by epoch number: a save is always above the
	// cluster's latest epoch, so appending keeps them sorted.
	epochs []store.Record
	state  store.State
	// updated is when state was last saved.
	updated time.Time
}

// New returns an empty Store bounded by cfg.
func New(cfg Config) *Store {
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Store{
		maxPerCluster: max(cmp.Or(cfg.MaxEpochsPerCluster, DefaultMaxEpochsPerCluster), 1),
		maxTotal:      max(cmp.Or(cfg.MaxEpochs, DefaultMaxEpochs), 1),
		now:           now,
		clusters:      make(map[string]*cluster),
		tokens:        make(map[string]store.Token),
	}
}

// Limits reports the bounds in force, for the start-up log line saying that
// history is in memory and how much of it is kept.
func (s *Store) Limits() (perCluster, total int) { return s.maxPerCluster, s.maxTotal }

// SaveEpoch stores rec and advances the cluster's state from prevStateEpoch
// to rec.Epoch, atomically. If (cluster, epoch) is stored already it returns
// the stored record and replay true when the request hashes match, and
// store.ErrConflict otherwise; an epoch at or below the cluster's latest
// that was never stored (or was evicted) is store.ErrConflict; a cluster
// whose state is not at prevStateEpoch (absent counts as 0) is
// store.ErrStaleState.
func (s *Store) SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return store.Record{}, false, fmt.Errorf("save epoch: %w", err)
	}
	if err := rec.Validate(); err != nil {
		return store.Record{}, false, fmt.Errorf("save epoch: %w", err)
	}
	rec = clone(rec)
	if rec.CreatedAt.IsZero() {
		rec.CreatedAt = s.now()
	}
	// PostgreSQL keeps microseconds; so does this, so the backends agree.
	rec.CreatedAt = rec.CreatedAt.UTC().Truncate(time.Microsecond)
	slices.SortFunc(rec.Allocations, compareAllocations)

	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.clusters[rec.Cluster]
	if c != nil {
		if i, ok := c.find(rec.Epoch); ok {
			stored := c.epochs[i]
			if stored.RequestHash != rec.RequestHash {
				return store.Record{}, false, fmt.Errorf("save epoch %d of cluster %q: stored with a different request: %w", rec.Epoch, rec.Cluster, store.ErrConflict)
			}
			return clone(stored), true, nil
		}
		if c.state.Found && rec.Epoch <= c.state.Epoch {
			return store.Record{}, false, fmt.Errorf("save epoch %d of cluster %q: at or below latest epoch %d and never stored: %w", rec.Epoch, rec.Cluster, c.state.Epoch, store.ErrConflict)
		}
	}
	switch {
	case c == nil || !c.state.Found:
		if prevStateEpoch != 0 {
			return store.Record{}, false, fmt.Errorf("save epoch %d of cluster %q: expected state at epoch %d, cluster has none: %w", rec.Epoch, rec.Cluster, prevStateEpoch, store.ErrStaleState)
		}
	case c.state.Epoch != prevStateEpoch:
		return store.Record{}, false, fmt.Errorf("save epoch %d of cluster %q: expected state at epoch %d, found %d: %w", rec.Epoch, rec.Cluster, prevStateEpoch, c.state.Epoch, store.ErrStaleState)
	}
	if c == nil {
		c = &cluster{}
		s.clusters[rec.Cluster] = c
	}
	c.epochs = append(c.epochs, rec)
	c.state = store.State{Epoch: rec.Epoch, Found: true, State: bytes.Clone(rec.State)}
	c.updated = rec.CreatedAt
	s.order = append(s.order, key{rec.Cluster, rec.Epoch})
	s.total++
	for len(c.epochs) > s.maxPerCluster {
		c.dropFirst()
		s.total--
	}
	for s.total > s.maxTotal {
		s.evictOldest()
	}
	s.compactOrder()
	return clone(rec), false, nil
}

// evictOldest removes the earliest saved epoch still held. Per cluster the
// earliest saved is also the lowest, so it is always that cluster's first.
func (s *Store) evictOldest() {
	for s.head < len(s.order) {
		k := s.order[s.head]
		s.head++
		c := s.clusters[k.cluster]
		if c == nil || len(c.epochs) == 0 || c.epochs[0].Epoch != k.epoch {
			continue // already evicted or pruned
		}
		c.dropFirst()
		s.total--
		return
	}
}

// compactOrder drops order's dead prefix and stale entries once they
// outnumber the live ones, keeping the slice proportional to what is held.
func (s *Store) compactOrder() {
	if len(s.order) < 64 || len(s.order) < 2*s.total {
		return
	}
	live := make([]key, 0, s.total)
	for _, k := range s.order[s.head:] {
		if c := s.clusters[k.cluster]; c != nil {
			if _, ok := c.find(k.epoch); ok {
				live = append(live, k)
			}
		}
	}
	s.order, s.head = live, 0
}

// GetEpoch returns one stored epoch, or store.ErrNotFound.
func (s *Store) GetEpoch(ctx context.Context, clusterName string, epoch int64) (store.Record, error) {
	if err := ctx.Err(); err != nil {
		return store.Record{}, fmt.Errorf("get epoch: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if c := s.clusters[clusterName]; c != nil {
		if i, ok := c.find(epoch); ok {
			return clone(c.epochs[i]), nil
		}
	}
	return store.Record{}, fmt.Errorf("epoch %d of cluster %q: %w", epoch, clusterName, store.ErrNotFound)
}

// ListEpochs returns one page of a cluster's stored epochs, newest first,
// and the cursor for the next page (nil on the last page): pass it back as
// q.Before.
func (s *Store) ListEpochs(ctx context.Context, clusterName string, q store.Query) ([]store.Record, *int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, fmt.Errorf("list epochs: %w", err)
	}
	limit := q.PageSize()
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.clusters[clusterName]
	if c == nil {
		return []store.Record{}, nil, nil
	}
	out := []store.Record{}
	for i := len(c.epochs) - 1; i >= 0; i-- {
		r := c.epochs[i]
		if !inRange(r.Epoch, q.From, q.To) || (q.Before != nil && r.Epoch >= *q.Before) || !allocatesTo(r, q.JobID) {
			continue
		}
		if len(out) == limit {
			next := out[len(out)-1].Epoch
			return out, &next, nil
		}
		out = append(out, clone(r))
	}
	return out, nil, nil
}

// StreamEpochs calls fn with each stored epoch of the cluster in [from, to]
// (nil: unbounded), oldest first, stopping at fn's first error. It holds
// only a snapshot of the cluster's record headers, never the lock, while fn
// runs, so a slow reader cannot stall saves.
func (s *Store) StreamEpochs(ctx context.Context, clusterName string, from, to *int64, fn func(store.Record) error) error {
	s.mu.RLock()
	var snapshot []store.Record
	if c := s.clusters[clusterName]; c != nil {
		for _, r := range c.epochs {
			if inRange(r.Epoch, from, to) {
				snapshot = append(snapshot, r)
			}
		}
	}
	s.mu.RUnlock()
	for _, r := range snapshot {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("stream epochs: %w", err)
		}
		// Records are never mutated in place, so cloning outside the lock
		// is safe.
		if err := fn(clone(r)); err != nil {
			return fmt.Errorf("stream epochs: epoch %d: %w", r.Epoch, err)
		}
	}
	return nil
}

// LatestState returns the cluster's state as last saved; Found is false for
// a cluster never saved.
func (s *Store) LatestState(ctx context.Context, clusterName string) (store.State, error) {
	if err := ctx.Err(); err != nil {
		return store.State{}, fmt.Errorf("latest state: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.clusters[clusterName]
	if c == nil {
		return store.State{}, nil
	}
	st := c.state
	st.State = bytes.Clone(st.State)
	return st, nil
}

// StartEpoch returns the cluster's state and, when (cluster, epoch) is
// stored, its record: what the API reads before deciding an epoch.
func (s *Store) StartEpoch(ctx context.Context, clusterName string, epoch int64) (store.Start, error) {
	if err := ctx.Err(); err != nil {
		return store.Start{}, fmt.Errorf("start epoch: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := s.clusters[clusterName]
	if c == nil {
		return store.Start{}, nil
	}
	out := store.Start{State: c.state}
	out.State.State = bytes.Clone(c.state.State)
	if i, ok := c.find(epoch); ok {
		rec := clone(c.epochs[i])
		out.Stored = &rec
	}
	return out, nil
}

// Prune deletes the epochs saved before olderThan and returns how many. The
// batch size is ignored: memory has no locks worth keeping short.
func (s *Store) Prune(ctx context.Context, olderThan time.Time, _ int) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, fmt.Errorf("prune: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	deleted := 0
	for _, c := range s.clusters {
		kept := c.epochs[:0]
		for _, r := range c.epochs {
			if r.CreatedAt.Before(olderThan) {
				deleted++
				continue
			}
			kept = append(kept, r)
		}
		clear(c.epochs[len(kept):])
		c.epochs = kept
	}
	s.total -= deleted
	s.compactOrder()
	return deleted, nil
}

// CreateToken stores a token; a hash already stored is store.ErrConflict.
func (s *Store) CreateToken(ctx context.Context, t store.Token) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("create token: %w", err)
	}
	if t.Created.IsZero() {
		t.Created = s.now()
	}
	t.Created = t.Created.UTC().Truncate(time.Microsecond)
	t.Expires = utcMicro(t.Expires)
	t.Revoked, t.LastUsed = time.Time{}, time.Time{}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tokens[t.Hash]; ok {
		return fmt.Errorf("create token: %w", store.ErrConflict)
	}
	s.tokens[t.Hash] = t
	return nil
}

// LookupToken returns the token with the given hash, or store.ErrNotFound.
func (s *Store) LookupToken(ctx context.Context, hash string) (store.Token, error) {
	if err := ctx.Err(); err != nil {
		return store.Token{}, fmt.Errorf("lookup token: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tokens[hash]
	if !ok {
		return store.Token{}, fmt.Errorf("lookup token: %w", store.ErrNotFound)
	}
	return t, nil
}

// utcMicro is t in UTC to the microsecond, as PostgreSQL keeps it; the
// zero time stays zero.
func utcMicro(t time.Time) time.Time {
	if t.IsZero() {
		return t
	}
	return t.UTC().Truncate(time.Microsecond)
}

// ListTokens returns every token, revoked and expired ones included,
// oldest first (by creation, then hash).
func (s *Store) ListTokens(ctx context.Context) ([]store.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	s.mu.RLock()
	out := make([]store.Token, 0, len(s.tokens))
	for _, t := range s.tokens {
		out = append(out, t)
	}
	s.mu.RUnlock()
	slices.SortFunc(out, func(a, b store.Token) int {
		return cmp.Or(a.Created.Compare(b.Created), strings.Compare(a.Hash, b.Hash))
	})
	return out, nil
}

// RevokeToken marks the token revoked at at (a token revoked already keeps
// its first time) and returns it; an unknown hash is store.ErrNotFound.
// The token stays stored.
func (s *Store) RevokeToken(ctx context.Context, hash string, at time.Time) (store.Token, error) {
	if err := ctx.Err(); err != nil {
		return store.Token{}, fmt.Errorf("revoke token: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tokens[hash]
	if !ok {
		return store.Token{}, fmt.Errorf("revoke token: %w", store.ErrNotFound)
	}
	if t.Revoked.IsZero() {
		t.Revoked = utcMicro(at)
		s.tokens[hash] = t
	}
	return t, nil
}

// TouchToken records that the token was used at at (kept only when later
// than the time recorded); an unknown hash is ignored.
func (s *Store) TouchToken(ctx context.Context, hash string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("touch token: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.tokens[hash]; ok && at.After(t.LastUsed) {
		t.LastUsed = utcMicro(at)
		s.tokens[hash] = t
	}
	return nil
}

// ListClusters returns every cluster with a saved epoch, by name.
func (s *Store) ListClusters(ctx context.Context) ([]store.ClusterInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list clusters: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]store.ClusterInfo, 0, len(s.clusters))
	for name, c := range s.clusters {
		if !c.state.Found {
			continue
		}
		ci := store.ClusterInfo{Name: name, LastEpoch: c.state.Epoch, Updated: c.updated}
		out = append(out, ci)
	}
	slices.SortFunc(out, func(a, b store.ClusterInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// HasTokens reports whether any token is stored.
func (s *Store) HasTokens(ctx context.Context) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("has tokens: %w", err)
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.tokens) > 0, nil
}

// Ping always succeeds: memory is always reachable.
func (s *Store) Ping(context.Context) error { return nil }

// dropFirst evicts the lowest epoch in O(1): re-slicing, not copying, so a
// full cluster does not move its whole history on every save; the next
// append that outgrows the array releases the dropped prefix.
func (c *cluster) dropFirst() {
	c.epochs[0] = store.Record{} // let the record's bytes go now
	c.epochs = c.epochs[1:]
}

// find returns the index of epoch in c.epochs.
func (c *cluster) find(epoch int64) (int, bool) {
	i := sort.Search(len(c.epochs), func(i int) bool { return c.epochs[i].Epoch >= epoch })
	return i, i < len(c.epochs) && c.epochs[i].Epoch == epoch
}

func inRange(epoch int64, from, to *int64) bool {
	return (from == nil || epoch >= *from) && (to == nil || epoch <= *to)
}

func allocatesTo(r store.Record, job string) bool {
	if job == "" {
		return true
	}
	return slices.ContainsFunc(r.Allocations, func(a store.Allocation) bool { return a.JobID == job })
}

// compareAllocations orders allocations by job id then phase, the order
// store/postgres reads them back in.
func compareAllocations(a, b store.Allocation) int {
	return cmp.Or(cmp.Compare(a.JobID, b.JobID), cmp.Compare(a.Phase, b.Phase))
}

// clone deep-copies a record so callers never share its byte slices.
func clone(r store.Record) store.Record {
	r.Request = bytes.Clone(r.Request)
	r.Decision = bytes.Clone(r.Decision)
	r.State = bytes.Clone(r.State)
	r.Allocations = slices.Clone(r.Allocations)
	return r
}
