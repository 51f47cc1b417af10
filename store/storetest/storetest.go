// Package storetest is the conformance suite every history store passes
// (store/memory and store/postgres), in the manner of river's
// riverdrivertest: one behaviour, checked once, against each backend. It
// covers idempotent replay, conflicts, the cluster-state guard under
// concurrent writers, listing, paging, job filters, streaming order,
// pruning, tokens (with expiry, revocation and last use) and the cluster
// list.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/store"
)

// Store is the method set the suite exercises: everything a history backend
// provides.
type Store interface {
	SaveEpoch(ctx context.Context, rec store.Record, prevStateEpoch int64) (store.Record, bool, error)
	GetEpoch(ctx context.Context, cluster string, epoch int64) (store.Record, error)
	ListEpochs(ctx context.Context, cluster string, q store.Query) ([]store.Record, *int64, error)
	StreamEpochs(ctx context.Context, cluster string, from, to *int64, fn func(store.Record) error) error
	LatestState(ctx context.Context, cluster string) (store.State, error)
	StartEpoch(ctx context.Context, cluster string, epoch int64) (store.Start, error)
	Prune(ctx context.Context, olderThan time.Time, batch int) (int, error)
	CreateToken(ctx context.Context, t store.Token) error
	LookupToken(ctx context.Context, hash string) (store.Token, error)
	HasTokens(ctx context.Context) (bool, error)
	ListTokens(ctx context.Context) ([]store.Token, error)
	RevokeToken(ctx context.Context, hash string, at time.Time) (store.Token, error)
	TouchToken(ctx context.Context, hash string, at time.Time) error
	ListClusters(ctx context.Context) ([]store.ClusterInfo, error)
	Ping(ctx context.Context) error
}

// base is the creation time of the suite's records: fixed, so pruning is
// deterministic, and with microseconds only, as PostgreSQL keeps them.
var base = time.Date(2025, 3, 1, 12, 0, 0, 123456000, time.UTC)

// RunSuite runs the conformance suite; newStore must return an empty store
// of its own each call (subtests run in parallel).
func RunSuite(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	tests := map[string]func(*testing.T, Store){
		"save then get returns the record":          testSaveGet,
		"same epoch and body replays the original":  testReplay,
		"same epoch with another body conflicts":    testConflictChangedBody,
		"epoch below latest never stored conflicts": testConflictBelowLatest,
		"state guard":                        testStateGuard,
		"concurrent writers lose no update":  testConcurrentWriters,
		"invalid records are rejected":       testInvalid,
		"missing epoch and state":            testMissing,
		"list pages newest first":            testListPaging,
		"list filters":                       testListFilters,
		"stream oldest first":                testStream,
		"start epoch reads state and stored": testStartEpoch,
		"prune deletes only old epochs":      testPrune,
		"tokens":                             testTokens,
		"token lifecycle":                    testTokenLifecycle,
		"list clusters":                      testListClusters,
	}
	for _, name := range slices.Sorted(maps.Keys(tests)) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			if err := s.Ping(t.Context()); err != nil {
				t.Fatalf("Ping: %v", err)
			}
			tests[name](t, s)
		})
	}
}

// cmpOpts compares JSON by meaning, so a backend may store it normalised
// (jsonb, say, reorders keys and drops whitespace).
var cmpOpts = cmp.Options{
	cmp.Comparer(func(a, b json.RawMessage) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		var x, y any
		if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
			return string(a) == string(b)
		}
		return reflect.DeepEqual(x, y)
	}),
}

// rec builds a record of cluster c at epoch e whose request hash is hash;
// jobs, when given, each get a map allocation.
func rec(c string, e int64, hash string, jobs ...string) store.Record {
	r := store.Record{
		Cluster:     c,
		Epoch:       e,
		DecisionID:  fmt.Sprintf("d-%s-%d-%s", c, e, hash),
		RequestHash: hash,
		Request:     json.RawMessage(fmt.Sprintf(`{"epoch": %d, "hash": %q}`, e, hash)),
		Decision:    json.RawMessage(fmt.Sprintf(`{"cluster": %q, "epoch": %d}`, c, e)),
		State:       json.RawMessage(fmt.Sprintf(`{"last": %d}`, e)),
		CreatedAt:   base.Add(time.Duration(e) * time.Second),
	}
	for i, j := range jobs {
		r.Allocations = append(r.Allocations, store.Allocation{JobID: j, Phase: "map", Slots: i + 1, Reason: "priority"})
	}
	return r
}

// mustSave saves a chain of epochs of one cluster, each guarded by the one
// before (the first by 0), and fails the test on any error.
func mustSave(t *testing.T, s Store, recs ...store.Record) {
	t.Helper()
	prev := map[string]int64{}
	for _, r := range recs {
		if _, _, err := s.SaveEpoch(t.Context(), r, prev[r.Cluster]); err != nil {
			t.Fatalf("SaveEpoch(%s, %d): %v", r.Cluster, r.Epoch, err)
		}
		prev[r.Cluster] = r.Epoch
	}
}

func ptr(v int64) *int64 { return &v }

func testSaveGet(t *testing.T, s Store) {
	ctx := t.Context()
	in := rec("c1", 7, "h7")
	in.Allocations = []store.Allocation{
		{JobID: "job_2", Phase: "reduce", Slots: 3, Reason: "min"},
		{JobID: "job_1", Phase: "reduce", Slots: 0, Reason: "min"},
		{JobID: "job_1", Phase: "map", Slots: 12, Reason: "priority"},
	}
	in.Request = json.RawMessage(`{"epoch": 7, "jobs": [{"id": "job_1", "map": {"output_bytes_per_task": 1.0e8}}], "now": 12345.5}`)
	want := in
	want.Allocations = []store.Allocation{ // sorted by job, then phase
		{JobID: "job_1", Phase: "map", Slots: 12, Reason: "priority"},
		{JobID: "job_1", Phase: "reduce", Slots: 0, Reason: "min"},
		{JobID: "job_2", Phase: "reduce", Slots: 3, Reason: "min"},
	}
	saved, replay, err := s.SaveEpoch(ctx, in, 0)
	if err != nil || replay {
		t.Fatalf("SaveEpoch = replay %v, err %v; want a first save", replay, err)
	}
	if diff := cmp.Diff(want, saved, cmpOpts); diff != "" {
		t.Errorf("SaveEpoch result (-want +got):\n%s", diff)
	}
	got, err := s.GetEpoch(ctx, "c1", 7)
	if err != nil {
		t.Fatalf("GetEpoch: %v", err)
	}
	if diff := cmp.Diff(want, got, cmpOpts); diff != "" {
		t.Errorf("GetEpoch (-want +got):\n%s", diff)
	}
	if got.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt location = %v, want UTC", got.CreatedAt.Location())
	}
	st, err := s.LatestState(ctx, "c1")
	if err != nil {
		t.Fatalf("LatestState: %v", err)
	}
	if diff := cmp.Diff(store.State{Epoch: 7, Found: true, State: in.State}, st, cmpOpts); diff != "" {
		t.Errorf("LatestState (-want +got):\n%s", diff)
	}

	// Without CreatedAt the store stamps the save, in UTC.
	before := time.Now().Add(-time.Minute)
	noTime := rec("c1", 8, "h8")
	noTime.CreatedAt = time.Time{}
	saved, _, err = s.SaveEpoch(ctx, noTime, 7)
	if err != nil {
		t.Fatalf("SaveEpoch without CreatedAt: %v", err)
	}
	if saved.CreatedAt.Before(before) || saved.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want about now, in UTC", saved.CreatedAt)
	}
}

func testReplay(t *testing.T, s Store) {
	ctx := t.Context()
	first := rec("c1", 1, "same", "j1", "j2")
	mustSave(t, s, first)
	retry := rec("c1", 1, "same", "j3")
	retry.DecisionID = "a-new-decision"
	retry.Decision = json.RawMessage(`{"different": true}`)
	retry.CreatedAt = base.Add(time.Hour)
	// The retry's prev is 0 as the first attempt's was: a retry re-sends
	// what it sent, it does not re-read state.
	got, replay, err := s.SaveEpoch(ctx, retry, 0)
	if err != nil || !replay {
		t.Fatalf("SaveEpoch(retry) = replay %v, err %v; want replay", replay, err)
	}
	if diff := cmp.Diff(first, got, cmpOpts); diff != "" {
		t.Errorf("replay returns the original (-want +got):\n%s", diff)
	}
	st, err := s.LatestState(ctx, "c1")
	if err != nil || st.Epoch != 1 {
		t.Errorf("LatestState after replay = %+v, %v; want epoch 1", st, err)
	}
	page, _, err := s.ListEpochs(ctx, "c1", store.Query{})
	if err != nil || len(page) != 1 {
		t.Errorf("ListEpochs after replay = %d records, %v; want 1", len(page), err)
	}
	// A replay of an older epoch succeeds after later epochs are stored too.
	if _, _, err := s.SaveEpoch(ctx, rec("c1", 2, "h2"), 1); err != nil {
		t.Fatalf("SaveEpoch(2): %v", err)
	}
	if _, replay, err := s.SaveEpoch(ctx, retry, 0); err != nil || !replay {
		t.Errorf("late SaveEpoch(retry) = replay %v, err %v; want replay", replay, err)
	}
}

func testConflictChangedBody(t *testing.T, s Store) {
	mustSave(t, s, rec("c1", 1, "h1"), rec("c1", 2, "h2"))
	tests := map[string]struct {
		rec  store.Record
		prev int64
	}{
		"latest epoch, new body":           {rec("c1", 2, "other"), 1},
		"latest epoch, new body, new prev": {rec("c1", 2, "other"), 2},
		"older epoch, new body":            {rec("c1", 1, "other"), 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.SaveEpoch(t.Context(), tc.rec, tc.prev)
			if !errors.Is(err, store.ErrConflict) {
				t.Errorf("SaveEpoch = %v, want ErrConflict", err)
			}
		})
	}
	got, err := s.GetEpoch(t.Context(), "c1", 2)
	if err != nil || got.RequestHash != "h2" {
		t.Errorf("GetEpoch after conflicts = %q, %v; want the original h2", got.RequestHash, err)
	}
}

func testConflictBelowLatest(t *testing.T, s Store) {
	mustSave(t, s, rec("c1", 5, "h5"), rec("c1", 10, "h10"), rec("other", 1, "o1"))
	tests := map[string]struct {
		rec  store.Record
		prev int64
	}{
		"below latest, prev is latest": {rec("c1", 7, "h7"), 10},
		"below latest, prev is older":  {rec("c1", 3, "h3"), 5},
		"below every stored epoch":     {rec("c1", 0, "h0"), 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if _, _, err := s.SaveEpoch(t.Context(), tc.rec, tc.prev); !errors.Is(err, store.ErrConflict) {
				t.Errorf("SaveEpoch = %v, want ErrConflict", err)
			}
			if _, err := s.GetEpoch(t.Context(), tc.rec.Cluster, tc.rec.Epoch); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GetEpoch after conflict = %v, want ErrNotFound", err)
			}
		})
	}
	// Another cluster's numbers are its own.
	if _, _, err := s.SaveEpoch(t.Context(), rec("other", 2, "o2"), 1); err != nil {
		t.Errorf("SaveEpoch(other, 2) = %v, want success", err)
	}
}

func testStateGuard(t *testing.T, s Store) {
	// Steps run in order on one store; each says what the save must do.
	steps := []struct {
		name    string
		rec     store.Record
		prev    int64
		wantErr error
	}{
		{"first save claiming a previous state", rec("c1", 1, "a"), 3, store.ErrStaleState},
		{"first save from nothing", rec("c1", 1, "a"), 0, nil},
		{"next save still claiming nothing", rec("c1", 2, "b"), 0, store.ErrStaleState},
		{"next save claiming a future state", rec("c1", 2, "b"), 2, store.ErrStaleState},
		{"next save from the latest", rec("c1", 2, "b"), 1, nil},
		{"gap in epochs from the latest", rec("c1", 9, "c"), 2, nil},
		{"save from a superseded state", rec("c1", 10, "d"), 2, store.ErrStaleState},
		{"cluster starting at epoch zero", rec("c2", 0, "z"), 0, nil},
		{"after epoch zero", rec("c2", 1, "y"), 0, nil},
	}
	for _, step := range steps {
		_, _, err := s.SaveEpoch(t.Context(), step.rec, step.prev)
		if !errors.Is(err, step.wantErr) || (err != nil) != (step.wantErr != nil) {
			t.Fatalf("%s: SaveEpoch(%d, prev %d) = %v, want %v", step.name, step.rec.Epoch, step.prev, err, step.wantErr)
		}
	}
	for cluster, want := range map[string]int64{"c1": 9, "c2": 1} {
		st, err := s.LatestState(t.Context(), cluster)
		if err != nil || !st.Found || st.Epoch != want {
			t.Errorf("LatestState(%s) = %+v, %v; want epoch %d", cluster, st, err, want)
		}
	}
}

// testConcurrentWriters races two writers, each doing what a flexd replica
// does: read the cluster's state, derive the next state from it (a counter
// of the saves before it), and save guarded by the epoch it read. Rounds
// are in lockstep, so both writers always read the same state and then
// save at the same time, on separate connections: exactly one must win
// each round, and the counter must end equal to the number of rounds (a
// lost update would leave it short). In even rounds both propose the same
// epoch (the loser conflicts); in odd rounds the second proposes one
// further (the loser finds the state moved on, or its epoch below latest).
func testConcurrentWriters(t *testing.T, s Store) {
	const (
		writers = 2
		rounds  = 50
		cluster = "race"
	)
	type counter struct {
		Count int `json:"count"`
	}
	type outcome struct {
		epoch int64
		won   bool
		err   error
	}
	ctx := t.Context()
	var stored []int64 // epochs won, in order
	for round := range rounds {
		var read, done sync.WaitGroup
		saveNow := make(chan struct{})
		out := make([]outcome, writers)
		read.Add(writers)
		for w := range writers {
			done.Go(func() {
				st, err := s.LatestState(ctx, cluster)
				read.Done()
				if err != nil {
					out[w].err = fmt.Errorf("LatestState: %w", err)
					return
				}
				var c counter
				if st.Found {
					if err := json.Unmarshal(st.State, &c); err != nil {
						out[w].err = fmt.Errorf("decoding state: %w", err)
						return
					}
				}
				epoch := st.Epoch + 1 + int64(w*(round%2))
				r := rec(cluster, epoch, fmt.Sprintf("w%d-e%d", w, epoch))
				r.State = json.RawMessage(fmt.Sprintf(`{"count": %d}`, c.Count+1))
				<-saveNow
				_, replay, err := s.SaveEpoch(ctx, r, st.Epoch)
				switch {
				case err == nil && replay:
					out[w].err = fmt.Errorf("epoch %d: replay of a body only this writer sends", epoch)
				case err == nil:
					out[w] = outcome{epoch: epoch, won: true}
				case errors.Is(err, store.ErrConflict), errors.Is(err, store.ErrStaleState):
					// Lost the race, as a replica would, and would retry.
				default:
					out[w].err = fmt.Errorf("SaveEpoch(%d): %w", epoch, err)
				}
			})
		}
		read.Wait() // both have read the same state
		close(saveNow)
		done.Wait()
		winners := 0
		for w, o := range out {
			if o.err != nil {
				t.Fatalf("round %d, writer %d: %v", round, w, o.err)
			}
			if o.won {
				winners++
				stored = append(stored, o.epoch)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d writers won, want exactly 1", round, winners)
		}
	}

	var streamed []int64
	err := s.StreamEpochs(ctx, cluster, nil, nil, func(r store.Record) error {
		streamed = append(streamed, r.Epoch)
		var c counter
		if err := json.Unmarshal(r.State, &c); err != nil {
			return fmt.Errorf("decoding state: %w", err)
		}
		if c.Count != len(streamed) {
			t.Errorf("epoch %d: state count %d, want %d (an update was lost)", r.Epoch, c.Count, len(streamed))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("StreamEpochs: %v", err)
	}
	if diff := cmp.Diff(stored, streamed); diff != "" {
		t.Errorf("stored epochs differ from those won (-won +stored):\n%s", diff)
	}
	st, err := s.LatestState(ctx, cluster)
	if err != nil {
		t.Fatalf("LatestState: %v", err)
	}
	var c counter
	if err := json.Unmarshal(st.State, &c); err != nil || c.Count != rounds || st.Epoch != stored[len(stored)-1] {
		t.Errorf("final state %s at epoch %d (%v); want count %d at epoch %d", st.State, st.Epoch, err, rounds, stored[len(stored)-1])
	}
}

func testInvalid(t *testing.T, s Store) {
	dup := rec("c1", 1, "h", "j1")
	dup.Allocations = append(dup.Allocations, dup.Allocations[0])
	noJSON := rec("c1", 1, "h")
	noJSON.Request = json.RawMessage(`{"epoch":`)
	tests := map[string]store.Record{
		"empty cluster":        rec("", 1, "h"),
		"negative epoch":       rec("c1", -1, "h"),
		"empty hash":           rec("c1", 1, ""),
		"duplicate allocation": dup,
		"request not JSON":     noJSON,
	}
	for name, r := range tests {
		t.Run(name, func(t *testing.T) {
			if _, _, err := s.SaveEpoch(t.Context(), r, 0); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("SaveEpoch = %v, want ErrInvalid", err)
			}
		})
	}
	if st, err := s.LatestState(t.Context(), "c1"); err != nil || st.Found {
		t.Errorf("LatestState after invalid saves = %+v, %v; want none", st, err)
	}
}

func testStartEpoch(t *testing.T, s Store) {
	ctx := t.Context()
	st, err := s.StartEpoch(ctx, "c1", 1)
	if err != nil || st.State.Found || st.Stored != nil {
		t.Fatalf("StartEpoch of an unknown cluster = %+v, %v; want nothing", st, err)
	}
	first := rec("c1", 1, "h1", "j1", "j2")
	mustSave(t, s, first)
	want, err := s.GetEpoch(ctx, "c1", 1)
	if err != nil {
		t.Fatalf("GetEpoch: %v", err)
	}
	st, err = s.StartEpoch(ctx, "c1", 1)
	if err != nil {
		t.Fatalf("StartEpoch(stored): %v", err)
	}
	if !st.State.Found || st.State.Epoch != 1 || st.Stored == nil {
		t.Fatalf("StartEpoch(stored) = %+v; want state at 1 and the record", st)
	}
	if diff := cmp.Diff(want, *st.Stored, cmpOpts...); diff != "" {
		t.Errorf("StartEpoch(stored).Stored differs from GetEpoch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(first.State, st.State.State, cmpOpts...); diff != "" {
		t.Errorf("StartEpoch state (-want +got):\n%s", diff)
	}
	st, err = s.StartEpoch(ctx, "c1", 2)
	if err != nil || !st.State.Found || st.State.Epoch != 1 || st.Stored != nil {
		t.Errorf("StartEpoch(next) = %+v, %v; want state at 1 and no record", st, err)
	}
}

func testMissing(t *testing.T, s Store) {
	mustSave(t, s, rec("c1", 1, "h1"))
	for name, q := range map[string]struct {
		cluster string
		epoch   int64
	}{
		"unknown cluster": {"nope", 1},
		"unknown epoch":   {"c1", 2},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := s.GetEpoch(t.Context(), q.cluster, q.epoch); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("GetEpoch = %v, want ErrNotFound", err)
			}
		})
	}
	st, err := s.LatestState(t.Context(), "nope")
	if err != nil || st.Found || st.Epoch != 0 || st.State != nil {
		t.Errorf("LatestState(unknown) = %+v, %v; want zero State", st, err)
	}
	page, next, err := s.ListEpochs(t.Context(), "nope", store.Query{})
	if err != nil || len(page) != 0 || next != nil {
		t.Errorf("ListEpochs(unknown) = %d records, next %v, %v; want none", len(page), next, err)
	}
}

// epochsOf lists the epoch numbers of records.
func epochsOf(rs []store.Record) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.Epoch
	}
	return out
}

func seq(from, to, step int64) []int64 {
	var out []int64
	for e := from; (step > 0 && e <= to) || (step < 0 && e >= to); e += step {
		out = append(out, e)
	}
	return out
}

func testListPaging(t *testing.T, s Store) {
	var recs []store.Record
	for e := int64(1); e <= 25; e++ {
		recs = append(recs, rec("c1", e, fmt.Sprint(e), "j1"))
	}
	mustSave(t, s, recs...)
	mustSave(t, s, rec("c2", 100, "x"))

	var pages [][]int64
	q := store.Query{Limit: 10}
	for range 10 { // bounded: three pages expected
		page, next, err := s.ListEpochs(t.Context(), "c1", q)
		if err != nil {
			t.Fatalf("ListEpochs: %v", err)
		}
		pages = append(pages, epochsOf(page))
		if next == nil {
			break
		}
		q.Before = next
	}
	want := [][]int64{seq(25, 16, -1), seq(15, 6, -1), seq(5, 1, -1)}
	if diff := cmp.Diff(want, pages); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}

	page, _, err := s.ListEpochs(t.Context(), "c1", store.Query{Limit: 3})
	if err != nil || len(page) != 3 {
		t.Fatalf("ListEpochs(limit 3) = %d, %v", len(page), err)
	}
	if diff := cmp.Diff(recs[24], page[0], cmpOpts); diff != "" {
		t.Errorf("listed record (-want +got):\n%s", diff)
	}

	// An exact multiple of the page size ends without a dangling cursor.
	page, next, err := s.ListEpochs(t.Context(), "c1", store.Query{Limit: 25})
	if err != nil || len(page) != 25 || next != nil {
		t.Errorf("ListEpochs(limit 25) = %d records, next %v, %v; want 25 and no cursor", len(page), next, err)
	}
}

func testListFilters(t *testing.T, s Store) {
	var recs []store.Record
	for e := int64(1); e <= 12; e++ {
		jobs := []string{"all"}
		if e%2 == 1 {
			jobs = append(jobs, "odd")
		}
		if e%3 == 0 {
			jobs = append(jobs, "three")
		}
		recs = append(recs, rec("c1", e, fmt.Sprint(e), jobs...))
	}
	mustSave(t, s, recs...)
	mustSave(t, s, rec("c2", 1, "x", "odd"))

	tests := map[string]struct {
		q    store.Query
		want []int64
	}{
		"everything":             {store.Query{}, seq(12, 1, -1)},
		"from":                   {store.Query{From: ptr(9)}, seq(12, 9, -1)},
		"to":                     {store.Query{To: ptr(3)}, seq(3, 1, -1)},
		"from and to":            {store.Query{From: ptr(4), To: ptr(6)}, seq(6, 4, -1)},
		"job":                    {store.Query{JobID: "odd"}, seq(11, 1, -2)},
		"job and range":          {store.Query{JobID: "three", From: ptr(4), To: ptr(11)}, []int64{9, 6}},
		"job and cursor":         {store.Query{JobID: "odd", Before: ptr(7)}, []int64{5, 3, 1}},
		"unknown job":            {store.Query{JobID: "nobody"}, []int64{}},
		"empty range":            {store.Query{From: ptr(8), To: ptr(7)}, []int64{}},
		"limit past the maximum": {store.Query{Limit: store.MaxLimit + 5}, seq(12, 1, -1)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			page, next, err := s.ListEpochs(t.Context(), "c1", tc.q)
			if err != nil {
				t.Fatalf("ListEpochs: %v", err)
			}
			if diff := cmp.Diff(tc.want, epochsOf(page)); diff != "" {
				t.Errorf("epochs (-want +got):\n%s", diff)
			}
			if next != nil {
				t.Errorf("next = %d, want none", *next)
			}
		})
	}
	// A job-filtered page still carries every allocation of the epoch.
	page, next, err := s.ListEpochs(t.Context(), "c1", store.Query{JobID: "three", Limit: 1})
	if err != nil || len(page) != 1 || next == nil || *next != 12 {
		t.Fatalf("ListEpochs(three, limit 1) = %v, next %v, %v; want epoch 12 and cursor 12", epochsOf(page), next, err)
	}
	if diff := cmp.Diff(recs[11].Allocations, page[0].Allocations); diff != "" {
		t.Errorf("allocations (-want +got):\n%s", diff)
	}
}

func testStream(t *testing.T, s Store) {
	// More epochs than one read batch of store/postgres (256).
	const n = 300
	var recs []store.Record
	for e := int64(1); e <= n; e++ {
		recs = append(recs, rec("c1", e, fmt.Sprint(e), "j1"))
	}
	mustSave(t, s, recs...)
	mustSave(t, s, rec("c2", 5, "x"))

	tests := map[string]struct {
		from, to *int64
		want     []int64
	}{
		"everything":   {nil, nil, seq(1, n, 1)},
		"from":         {ptr(290), nil, seq(290, n, 1)},
		"to":           {nil, ptr(3), seq(1, 3, 1)},
		"window":       {ptr(100), ptr(110), seq(100, 110, 1)},
		"past the end": {ptr(n + 1), nil, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []int64
			err := s.StreamEpochs(t.Context(), "c1", tc.from, tc.to, func(r store.Record) error {
				got = append(got, r.Epoch)
				return nil
			})
			if err != nil {
				t.Fatalf("StreamEpochs: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("epochs (-want +got):\n%s", diff)
			}
		})
	}
	var first store.Record
	stop := errors.New("stop")
	calls := 0
	err := s.StreamEpochs(t.Context(), "c1", nil, nil, func(r store.Record) error {
		calls++
		first = r
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("StreamEpochs with a failing fn = %v after %d calls; want stop after 1", err, calls)
	}
	if diff := cmp.Diff(recs[0], first, cmpOpts); diff != "" {
		t.Errorf("streamed record (-want +got):\n%s", diff)
	}
}

func testPrune(t *testing.T, s Store) {
	ctx := t.Context()
	// rec stamps epoch e at base+e seconds.
	var recs []store.Record
	for e := int64(1); e <= 10; e++ {
		recs = append(recs, rec("c1", e, fmt.Sprint(e), "j1", "j2"))
	}
	mustSave(t, s, recs...)
	mustSave(t, s, rec("c2", 3, "x"), rec("c2", 20, "y"))

	n, err := s.Prune(ctx, base.Add(7*time.Second), 2) // before epoch 7's time
	if err != nil || n != 7 {
		t.Fatalf("Prune = %d, %v; want 7 (c1 1..6 and c2 3)", n, err)
	}
	page, _, err := s.ListEpochs(ctx, "c1", store.Query{})
	if err != nil {
		t.Fatalf("ListEpochs: %v", err)
	}
	if diff := cmp.Diff(seq(10, 7, -1), epochsOf(page)); diff != "" {
		t.Errorf("kept epochs (-want +got):\n%s", diff)
	}
	if _, err := s.GetEpoch(ctx, "c2", 3); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetEpoch(pruned) = %v, want ErrNotFound", err)
	}
	if page, _, err := s.ListEpochs(ctx, "c1", store.Query{JobID: "j2", To: ptr(6)}); err != nil || len(page) != 0 {
		t.Errorf("ListEpochs by job over pruned epochs = %v, %v; want none", epochsOf(page), err)
	}
	// The state survives pruning, and so does the guard: a pruned epoch
	// cannot be saved again.
	if st, err := s.LatestState(ctx, "c1"); err != nil || st.Epoch != 10 {
		t.Errorf("LatestState after prune = %+v, %v; want epoch 10", st, err)
	}
	if _, _, err := s.SaveEpoch(ctx, recs[0], 10); !errors.Is(err, store.ErrConflict) {
		t.Errorf("SaveEpoch(pruned epoch) = %v, want ErrConflict", err)
	}
	if n, err := s.Prune(ctx, base.Add(7*time.Second), 2); err != nil || n != 0 {
		t.Errorf("second Prune = %d, %v; want 0", n, err)
	}
}

func testTokens(t *testing.T, s Store) {
	ctx := t.Context()
	if ok, err := s.HasTokens(ctx); err != nil || ok {
		t.Fatalf("HasTokens on empty = %v, %v; want false", ok, err)
	}
	tokens := []store.Token{
		{Hash: "aa", Cluster: "c1", Created: base},
		{Hash: "bb", Admin: true, Created: base.Add(time.Second)},
	}
	for _, tok := range tokens {
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatalf("CreateToken(%s): %v", tok.Hash, err)
		}
	}
	for _, want := range tokens {
		got, err := s.LookupToken(ctx, want.Hash)
		if err != nil {
			t.Fatalf("LookupToken(%s): %v", want.Hash, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("LookupToken(%s) (-want +got):\n%s", want.Hash, diff)
		}
	}
	errTests := map[string]struct {
		err  error
		want error
	}{
		"duplicate hash":            {s.CreateToken(ctx, store.Token{Hash: "aa", Cluster: "c2"}), store.ErrConflict},
		"no hash":                   {s.CreateToken(ctx, store.Token{Cluster: "c2"}), store.ErrInvalid},
		"neither admin nor cluster": {s.CreateToken(ctx, store.Token{Hash: "cc"}), store.ErrInvalid},
		"unknown hash":              {func() error { _, err := s.LookupToken(ctx, "zz"); return err }(), store.ErrNotFound},
	}
	for name, tc := range errTests {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: err = %v, want %v", name, tc.err, tc.want)
		}
	}
	if ok, err := s.HasTokens(ctx); err != nil || !ok {
		t.Errorf("HasTokens = %v, %v; want true", ok, err)
	}
	// Without Created the store stamps it.
	if err := s.CreateToken(ctx, store.Token{Hash: "dd", Cluster: "c3"}); err != nil {
		t.Fatalf("CreateToken without time: %v", err)
	}
	if got, err := s.LookupToken(ctx, "dd"); err != nil || got.Created.IsZero() || got.Created.Location() != time.UTC {
		t.Errorf("LookupToken(dd) = %+v, %v; want a UTC creation time", got, err)
	}
}

// testTokenLifecycle: expiry stored and read back, list (revoked and
// expired included, oldest first), revoke (kept, marked, first time kept,
// the last revoked leaves HasTokens true), last use (only later times).
func testTokenLifecycle(t *testing.T, s Store) {
	ctx := t.Context()
	tokens := []store.Token{
		{Hash: "b1", Cluster: "c1", Created: base.Add(time.Second), Expires: base.Add(time.Hour)},
		{Hash: "a1", Admin: true, Created: base},
	}
	for _, tok := range tokens {
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatalf("CreateToken(%s): %v", tok.Hash, err)
		}
	}
	if err := s.CreateToken(ctx, store.Token{Hash: "x1", Cluster: "c1", Created: base, Expires: base}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a token expiring at its creation: %v, want ErrInvalid", err)
	}
	got, err := s.ListTokens(ctx)
	if err != nil {
		t.Fatalf("ListTokens: %v", err)
	}
	if diff := cmp.Diff([]store.Token{tokens[1], tokens[0]}, got); diff != "" {
		t.Errorf("ListTokens (-want +got):\n%s", diff)
	}
	if st := got[1].State(base.Add(time.Hour)); st != store.TokenExpired {
		t.Errorf("state at the expiry = %s, want expired", st)
	}
	if st := got[1].State(base.Add(time.Hour - time.Microsecond)); st != store.TokenActive {
		t.Errorf("state just before the expiry = %s, want active", st)
	}

	used := base.Add(2 * time.Minute)
	if err := s.TouchToken(ctx, "b1", used); err != nil {
		t.Fatalf("TouchToken: %v", err)
	}
	if err := s.TouchToken(ctx, "b1", base.Add(time.Minute)); err != nil {
		t.Fatalf("TouchToken (earlier): %v", err)
	}
	if err := s.TouchToken(ctx, "zz", used); err != nil {
		t.Errorf("TouchToken of an unknown hash: %v, want it ignored", err)
	}
	if tok, err := s.LookupToken(ctx, "b1"); err != nil || !tok.LastUsed.Equal(used) {
		t.Errorf("LookupToken after use = %+v, %v; want last used %v", tok, err, used)
	}

	at := base.Add(3 * time.Minute)
	for _, h := range []string{"a1", "b1"} {
		rt, err := s.RevokeToken(ctx, h, at)
		if err != nil || !rt.Revoked.Equal(at) || rt.State(at) != store.TokenRevoked {
			t.Errorf("RevokeToken(%s) = %+v, %v; want revoked at %v", h, rt, err, at)
		}
	}
	if rt, err := s.RevokeToken(ctx, "a1", at.Add(time.Hour)); err != nil || !rt.Revoked.Equal(at) {
		t.Errorf("a second RevokeToken = %+v, %v; want the first time kept", rt, err)
	}
	if _, err := s.RevokeToken(ctx, "zz", at); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeToken of an unknown hash: %v, want ErrNotFound", err)
	}
	if ok, err := s.HasTokens(ctx); err != nil || !ok {
		t.Errorf("HasTokens with every token revoked = %v, %v; want true (access control stays on)", ok, err)
	}
	if tok, err := s.LookupToken(ctx, "b1"); err != nil || tok.State(at) != store.TokenRevoked || !tok.LastUsed.Equal(used) {
		t.Errorf("LookupToken of a revoked token = %+v, %v; want it, revoked", tok, err)
	}
	if got, err := s.ListTokens(ctx); err != nil || len(got) != 2 {
		t.Errorf("ListTokens after revoking = %d tokens, %v; want both kept", len(got), err)
	}
}

// testListClusters: every cluster with a saved epoch, by name, with its
// latest epoch and when it was saved.
func testListClusters(t *testing.T, s Store) {
	ctx := t.Context()
	if got, err := s.ListClusters(ctx); err != nil || len(got) != 0 {
		t.Fatalf("ListClusters on empty = %v, %v; want none", got, err)
	}
	save := func(cluster string, ep, prev int64, at time.Time) {
		t.Helper()
		r := rec(cluster, ep, "h")
		r.CreatedAt = at
		if _, _, err := s.SaveEpoch(ctx, r, prev); err != nil {
			t.Fatalf("SaveEpoch(%s, %d): %v", cluster, ep, err)
		}
	}
	save("zeta", 1, 0, base)
	save("alpha", 1, 0, base)
	save("alpha", 3, 1, base.Add(time.Second))
	got, err := s.ListClusters(ctx)
	if err != nil {
		t.Fatalf("ListClusters: %v", err)
	}
	want := []store.ClusterInfo{{Name: "alpha", LastEpoch: 3, Updated: base.Add(time.Second)}, {Name: "zeta", LastEpoch: 1, Updated: base}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ListClusters (-want +got):\n%s", diff)
	}
}
