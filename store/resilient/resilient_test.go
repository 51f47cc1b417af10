package resilient_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/memory"
	"github.com/flexd/flexd/store/resilient"
)

var errDown = errors.New("dial tcp 127.0.0.1:5432: connect: connection refused")

// flaky is the memory store as a database that can be taken away.
type flaky struct {
	*memory.Store
	down atomic.Bool
}

func (f *flaky) err() error {
	if f.down.Load() {
		return errDown
	}
	return nil
}

func (f *flaky) SaveEpoch(ctx context.Context, r store.Record, prev int64) (store.Record, bool, error) {
	if err := f.err(); err != nil {
		return store.Record{}, false, err
	}
	return f.Store.SaveEpoch(ctx, r, prev)
}

func (f *flaky) GetEpoch(ctx context.Context, c string, e int64) (store.Record, error) {
	if err := f.err(); err != nil {
		return store.Record{}, err
	}
	return f.Store.GetEpoch(ctx, c, e)
}

func (f *flaky) LatestState(ctx context.Context, c string) (store.State, error) {
	if err := f.err(); err != nil {
		return store.State{}, err
	}
	return f.Store.LatestState(ctx, c)
}

func (f *flaky) StartEpoch(ctx context.Context, c string, e int64) (store.Start, error) {
	if err := f.err(); err != nil {
		return store.Start{}, err
	}
	return f.Store.StartEpoch(ctx, c, e)
}

func (f *flaky) LookupToken(ctx context.Context, h string) (store.Token, error) {
	if err := f.err(); err != nil {
		return store.Token{}, err
	}
	return f.Store.LookupToken(ctx, h)
}

func (f *flaky) HasTokens(ctx context.Context) (bool, error) {
	if err := f.err(); err != nil {
		return false, err
	}
	return f.Store.HasTokens(ctx)
}

func record(cluster string, epoch int64, hash string) store.Record {
	return store.Record{
		Cluster: cluster, Epoch: epoch, DecisionID: fmt.Sprintf("d-%s-%d-%s", cluster, epoch, hash), RequestHash: hash,
		Request:   json.RawMessage(fmt.Sprintf(`{"epoch":%d}`, epoch)),
		Decision:  json.RawMessage(`{"allocations":[]}`),
		State:     json.RawMessage(fmt.Sprintf(`{"last_epoch":%d}`, epoch)),
		CreatedAt: time.Date(2026, 11, 24, 0, 0, int(epoch), 0, time.UTC),
	}
}

func newStore(t *testing.T, db resilient.Backend, dir string, max int64) *resilient.Store {
	t.Helper()
	s, err := resilient.New(db, resilient.Config{Dir: dir, MaxBytes: max, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// save decides epoch e of cluster c as the server does: read the state,
// save on it.
func save(t *testing.T, s *resilient.Store, c string, e int64, hash string) (store.Record, bool, error) {
	t.Helper()
	ctx := context.Background()
	start, err := s.StartEpoch(ctx, c, e)
	if err != nil {
		t.Fatalf("start epoch %d: %v", e, err)
	}
	if start.Stored != nil {
		if start.Stored.RequestHash == hash {
			return *start.Stored, true, nil
		}
		return store.Record{}, false, store.ErrConflict
	}
	return s.SaveEpoch(ctx, record(c, e, hash), start.State.Epoch)
}

func stored(t *testing.T, db *memory.Store, c string) []int64 {
	t.Helper()
	var out []int64
	err := db.StreamEpochs(context.Background(), c, nil, nil, func(r store.Record) error {
		out = append(out, r.Epoch)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOutage: with the database away, epochs are answered and spooled,
// decided from the spooled state; retries replay, other bodies conflict;
// once the database is back the drain stores each exactly once, in order,
// and saves go to the database again.
func TestOutage(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	s := newStore(t, db, t.TempDir(), 1<<20)
	ctx := context.Background()
	if _, _, err := save(t, s, "c1", 1, "h1"); err != nil {
		t.Fatal(err)
	}
	db.down.Store(true)
	for e := int64(2); e <= 3; e++ {
		if _, replay, err := save(t, s, "c1", e, fmt.Sprint("h", e)); err != nil || replay {
			t.Fatalf("epoch %d during the outage: replay %v, %v", e, replay, err)
		}
	}
	if !s.Degraded() || s.Status(time.Now()).Records != 2 {
		t.Fatalf("degraded %v, status %+v", s.Degraded(), s.Status(time.Now()))
	}
	if st, err := s.StartEpoch(ctx, "c1", 4); err != nil || st.State.Epoch != 3 {
		t.Errorf("state for epoch 4: %+v, %v; want the spooled epoch 3", st.State, err)
	}
	if _, replay, err := save(t, s, "c1", 3, "h3"); err != nil || !replay {
		t.Errorf("retry of a spooled epoch: replay %v, %v", replay, err)
	}
	if _, _, err := s.SaveEpoch(ctx, record("c1", 3, "other"), 2); !errors.Is(err, store.ErrConflict) {
		t.Errorf("another body for a spooled epoch: %v, want a conflict", err)
	}
	if r, err := s.GetEpoch(ctx, "c1", 2); err != nil || r.RequestHash != "h2" {
		t.Errorf("get a spooled epoch: %+v, %v", r, err)
	}
	if n, err := s.DrainOnce(ctx); n != 0 || err == nil {
		t.Errorf("drain with the database away: %d, %v", n, err)
	}
	db.down.Store(false)
	if n, err := s.DrainOnce(ctx); n != 2 || err != nil {
		t.Fatalf("drain: %d, %v", n, err)
	}
	if s.Degraded() {
		t.Error("still degraded after the drain")
	}
	if _, _, err := save(t, s, "c1", 4, "h4"); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(stored(t, db.Store, "c1")); got != "[1 2 3 4]" {
		t.Errorf("stored epochs %s, want [1 2 3 4]", got)
	}
}

// TestOrderKept: while records wait, saves join them even when the
// database is back, so a cluster's epochs reach it in order.
func TestOrderKept(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	s := newStore(t, db, t.TempDir(), 1<<20)
	db.down.Store(true)
	if _, _, err := save(t, s, "c1", 1, "h1"); err != nil {
		t.Fatal(err)
	}
	db.down.Store(false)
	if _, _, err := save(t, s, "c1", 2, "h2"); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, db.Store, "c1"); len(got) != 0 {
		t.Fatalf("the database got %v before the spool drained", got)
	}
	if n, err := s.DrainOnce(context.Background()); n != 2 || err != nil {
		t.Fatalf("drain: %d, %v", n, err)
	}
	if got := fmt.Sprint(stored(t, db.Store, "c1")); got != "[1 2]" {
		t.Errorf("stored %s, want [1 2]", got)
	}
}

// TestRestartDuringOutage: a process killed during the outage leaves its
// spool; the next one, started with the database still away, decides from
// the spooled state and drains everything once the database is back. A
// cluster it had not spooled decides from no state, and its record is
// saved on the database's state when drained.
func TestRestartDuringOutage(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	dir := t.TempDir()
	s := newStore(t, db, dir, 1<<20)
	for _, c := range []string{"c1", "c2"} {
		if _, _, err := save(t, s, c, 1, "h1"); err != nil {
			t.Fatal(err)
		}
	}
	db.down.Store(true)
	if _, _, err := save(t, s, "c1", 2, "h2"); err != nil {
		t.Fatal(err)
	}
	s.Close() // the kill: the spool is on disk

	s2 := newStore(t, db, dir, 1<<20)
	if !s2.Degraded() {
		t.Fatal("the reopened spool is empty")
	}
	if st, err := s2.StartEpoch(context.Background(), "c1", 3); err != nil || st.State.Epoch != 2 {
		t.Fatalf("state after restart: %+v, %v; want the spooled epoch 2", st.State, err)
	}
	if _, _, err := save(t, s2, "c1", 3, "h3"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := save(t, s2, "c2", 2, "h2"); err != nil {
		t.Fatal(err)
	}
	db.down.Store(false)
	if n, err := s2.DrainOnce(context.Background()); n != 3 || err != nil {
		t.Fatalf("drain: %d, %v", n, err)
	}
	if got := fmt.Sprint(stored(t, db.Store, "c1"), stored(t, db.Store, "c2")); got != "[1 2 3] [1 2]" {
		t.Errorf("stored %s, want [1 2 3] [1 2]", got)
	}
	if st := s2.Status(time.Now()); st.Aside != 0 || st.Drained != 3 {
		t.Errorf("status %+v", st)
	}
}

// TestRefusedKeptAside: a spooled epoch the database has with another body
// (another replica answered it) is kept aside, not overwritten, and the
// drain goes on.
func TestRefusedKeptAside(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	s := newStore(t, db, t.TempDir(), 1<<20)
	db.down.Store(true)
	if _, _, err := save(t, s, "c1", 1, "mine"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := save(t, s, "c2", 1, "h1"); err != nil {
		t.Fatal(err)
	}
	db.down.Store(false)
	if _, _, err := db.Store.SaveEpoch(context.Background(), record("c1", 1, "theirs"), 0); err != nil {
		t.Fatal(err)
	}
	if n, err := s.DrainOnce(context.Background()); n != 2 || err != nil {
		t.Fatalf("drain: %d, %v", n, err)
	}
	r, err := db.Store.GetEpoch(context.Background(), "c1", 1)
	if err != nil || r.RequestHash != "theirs" {
		t.Errorf("c1/1 in the database: %+v, %v; want the other replica's, untouched", r.RequestHash, err)
	}
	if st := s.Status(time.Now()); st.Aside != 1 || st.Records != 0 {
		t.Errorf("status %+v, want one record aside and none waiting", st)
	}
}

// TestFullSpool: past its bound the spool refuses, as store.ErrUnavailable
// (the server's 503), rather than dropping the record.
func TestFullSpool(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	s := newStore(t, db, t.TempDir(), 600)
	db.down.Store(true)
	var err error
	for e := int64(1); e < 20 && err == nil; e++ {
		_, _, err = save(t, s, "c1", e, fmt.Sprint("h", e))
	}
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("err %v, want store.ErrUnavailable once full", err)
	}
}

// TestTokensThroughOutage: the token set and the tokens looked up while the
// database answered stay known; an unknown token is unavailable, neither
// accepted nor refused.
func TestTokensThroughOutage(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	ctx := context.Background()
	if err := db.Store.CreateToken(ctx, store.Token{Hash: "known", Cluster: "c1", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	s := newStore(t, db, t.TempDir(), 1<<20)
	if ok, err := s.HasTokens(ctx); !ok || err != nil {
		t.Fatalf("has tokens: %v, %v", ok, err)
	}
	if _, err := s.LookupToken(ctx, "known"); err != nil {
		t.Fatal(err)
	}
	db.down.Store(true)
	if ok, err := s.HasTokens(ctx); !ok || err != nil {
		t.Errorf("has tokens during the outage: %v, %v", ok, err)
	}
	if tok, err := s.LookupToken(ctx, "known"); err != nil || tok.Cluster != "c1" {
		t.Errorf("known token during the outage: %+v, %v", tok, err)
	}
	if _, err := s.LookupToken(ctx, "unknown"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("unknown token during the outage: %v, want store.ErrUnavailable", err)
	}
}

// TestTokensRemembered: whether tokens exist survives a restart during an
// outage, so a process started then neither turns access control off nor
// locks every caller out.
func TestTokensRemembered(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	ctx := context.Background()
	dir := t.TempDir()
	s := newStore(t, db, dir, 1<<20)
	if ok, err := s.HasTokens(ctx); ok || err != nil {
		t.Fatalf("has tokens: %v, %v", ok, err)
	}
	s.Close()
	db.down.Store(true)
	s2 := newStore(t, db, dir, 1<<20)
	if ok, err := s2.HasTokens(ctx); ok || err != nil {
		t.Errorf("after a restart during the outage: %v, %v; want the remembered false", ok, err)
	}
	s3 := newStore(t, db, t.TempDir(), 1<<20)
	if _, err := s3.HasTokens(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("with nothing remembered: %v, want store.ErrUnavailable", err)
	}
}

// TestHistoryWhilePending: while a cluster's epochs wait in the spool its
// history says it is incomplete (store.ErrUnavailable, a 503), and reads
// work again once they are drained.
func TestHistoryWhilePending(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	s := newStore(t, db, t.TempDir(), 1<<20)
	ctx := context.Background()
	db.down.Store(true)
	if _, _, err := save(t, s, "c1", 1, "h1"); err != nil {
		t.Fatal(err)
	}
	db.down.Store(false)
	if _, _, err := s.ListEpochs(ctx, "c1", store.Query{}); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("list while pending: %v, want store.ErrUnavailable", err)
	}
	if err := s.StreamEpochs(ctx, "c1", nil, nil, func(store.Record) error { return nil }); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("export while pending: %v, want store.ErrUnavailable", err)
	}
	if recs, _, err := s.ListEpochs(ctx, "c2", store.Query{}); err != nil || len(recs) != 0 {
		t.Errorf("another cluster's history: %d, %v", len(recs), err)
	}
	if _, err := s.DrainOnce(ctx); err != nil {
		t.Fatal(err)
	}
	if recs, _, err := s.ListEpochs(ctx, "c1", store.Query{}); err != nil || len(recs) != 1 {
		t.Errorf("list after the drain: %d, %v", len(recs), err)
	}
}

// BenchmarkSave measures what the spool costs: saves on a healthy backend
// through the resilient store against the backend alone (mode=healthy and
// mode=direct, the ratio is the overhead), and a save spooled while the
// backend is away, whose cost is one fsync (mode=spooled).
//
//	go test ./store/resilient -run '^$' -bench BenchmarkSave
func BenchmarkSave(b *testing.B) {
	for _, mode := range []string{"direct", "healthy", "spooled"} {
		b.Run("mode="+mode, func(b *testing.B) {
			db := &flaky{Store: memory.New(memory.Config{MaxEpochsPerCluster: 1 << 20, MaxEpochs: 1 << 20})}
			var saver interface {
				SaveEpoch(context.Context, store.Record, int64) (store.Record, bool, error)
			} = db
			if mode != "direct" {
				s, err := resilient.New(db, resilient.Config{Dir: b.TempDir(), MaxBytes: 1 << 40, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				saver = s
			}
			db.down.Store(mode == "spooled")
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := saver.SaveEpoch(ctx, record("c1", int64(i+1), "h"), int64(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestTwoReplicas: two replicas, each with its own spool, answer their
// clusters through one outage and drain into one database, concurrently:
// nothing lost, nothing stored twice. (A cluster whose epochs alternate
// between replicas during an outage is another matter: docs/design.md.)
func TestTwoReplicas(t *testing.T) {
	db := &flaky{Store: memory.New(memory.Config{})}
	a := newStore(t, db, t.TempDir(), 1<<20)
	b := newStore(t, db, t.TempDir(), 1<<20)
	for e := int64(1); e <= 3; e++ {
		for _, r := range []struct {
			s *resilient.Store
			c string
		}{{a, "a1"}, {a, "a2"}, {b, "b1"}} {
			if e == 2 {
				db.down.Store(true)
			}
			if _, _, err := save(t, r.s, r.c, e, fmt.Sprint("h", e)); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.down.Store(false)
	errs := make(chan error, 2)
	for _, s := range []*resilient.Store{a, b} {
		go func() {
			_, err := s.DrainOnce(context.Background())
			errs <- err
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{"a1", "a2", "b1"} {
		if got := fmt.Sprint(stored(t, db.Store, c)); got != "[1 2 3]" {
			t.Errorf("%s: stored %s, want [1 2 3]", c, got)
		}
	}
	if sa, sb := a.Status(time.Now()), b.Status(time.Now()); sa.Aside+sb.Aside != 0 || sa.Records+sb.Records != 0 {
		t.Errorf("statuses %+v %+v, want everything drained, nothing aside", sa, sb)
	}
}
