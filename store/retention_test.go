package store_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/flexd/flexd/store"
)

// pruneCall is one call a fakePruner saw.
type pruneCall struct {
	cutoff time.Time
	batch  int
}

// fakePruner reports each call on a channel and answers with err.
type fakePruner struct {
	calls chan pruneCall
	err   error
}

func (f *fakePruner) Prune(_ context.Context, olderThan time.Time, batch int) (int, error) {
	f.calls <- pruneCall{olderThan, batch}
	return 1, f.err
}

func TestRunRetention(t *testing.T) {
	now := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := map[string]struct {
		cfg  store.RetentionConfig
		err  error
		want pruneCall
	}{
		"defaults": {
			cfg:  store.RetentionConfig{Every: time.Millisecond},
			want: pruneCall{now.Add(-14 * 24 * time.Hour), store.DefaultPruneBatchSize},
		},
		"configured": {
			cfg:  store.RetentionConfig{Every: time.Millisecond, Keep: time.Hour, Batch: 7},
			want: pruneCall{now.Add(-time.Hour), 7},
		},
		"keeps going after errors": {
			cfg:  store.RetentionConfig{Every: time.Millisecond, Keep: time.Hour, Batch: 7},
			err:  errors.New("database away"),
			want: pruneCall{now.Add(-time.Hour), 7},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			p := &fakePruner{calls: make(chan pruneCall), err: tc.err}
			tc.cfg.Now = func() time.Time { return now }
			tc.cfg.Logger = quiet
			done := make(chan struct{})
			go func() {
				defer close(done)
				store.RunRetention(ctx, p, tc.cfg)
			}()
			// The first prune runs at once, later ones on the ticker.
			for i := range 3 {
				if got := <-p.calls; got != tc.want {
					t.Errorf("call %d: Prune(%v, %d), want (%v, %d)", i, got.cutoff, got.batch, tc.want.cutoff, tc.want.batch)
				}
			}
			cancel()
			// Drain a prune that may have started before the cancel, so the
			// loop can see ctx is done and return.
			for {
				select {
				case <-p.calls:
					continue
				case <-done:
				}
				break
			}
		})
	}
}
