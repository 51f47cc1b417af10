package store

import (
	"cmp"
	"context"
	"log/slog"
	"time"
)

// Retention defaults, used where RetentionConfig leaves a field zero.
const (
	DefaultRetention      = 14 * 24 * time.Hour
	DefaultPruneInterval  = time.Hour
	DefaultPruneBatchSize = 1000
)

// Pruner deletes stored epochs saved before olderThan, batch rows per
// statement, and says how many it deleted. Both backends implement it.
type Pruner interface {
	Prune(ctx context.Context, olderThan time.Time, batch int) (int, error)
}

// RetentionConfig configures RunRetention. Zero values mean the defaults.
type RetentionConfig struct {
	// Keep is how long epochs are kept (default DefaultRetention, 14 days).
	Keep time.Duration
	// Every is the pause between prunes (default DefaultPruneInterval).
	Every time.Duration
	// Batch is the rows deleted per statement (default DefaultPruneBatchSize);
	// small batches keep locks short while the server is saving epochs.
	Batch int
	// Logger receives one line per prune that deleted something, and errors
	// (default slog.Default()).
	Logger *slog.Logger
	// Now is the clock (default time.Now); tests fix it.
	Now func() time.Time
}

// RunRetention prunes p once at start and then every cfg.Every until ctx is
// done, deleting epochs older than cfg.Keep. A failed prune is logged and
// retried at the next tick rather than stopping the loop: history that
// outlives its retention for an hour is harmless, a dead pruner is not.
// It returns when ctx is done.
func RunRetention(ctx context.Context, p Pruner, cfg RetentionConfig) {
	keep := cmp.Or(cfg.Keep, DefaultRetention)
	every := cmp.Or(cfg.Every, DefaultPruneInterval)
	batch := cmp.Or(cfg.Batch, DefaultPruneBatchSize)
	logger := cfg.Logger
	if logger == nil {
		logger = slog.Default()
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	ticker := time.NewTicker(every)
	defer ticker.Stop()
	for {
		cutoff := now().Add(-keep).UTC()
		n, err := p.Prune(ctx, cutoff, batch)
		switch {
		case err != nil && ctx.Err() == nil:
			logger.ErrorContext(ctx, "pruning epoch history", "cutoff", cutoff, "deleted", n, "err", err)
		case n > 0:
			logger.InfoContext(ctx, "pruned epoch history", "cutoff", cutoff, "deleted", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}
