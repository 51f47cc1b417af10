package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/flexd/flexd/migrations"
)

// DefaultMigrationLockID is the PostgreSQL advisory lock key every flexd
// replica takes while migrating, so replicas starting together apply the
// migrations once and the others wait for them.
const DefaultMigrationLockID int64 = 0x666c657864 // "flexd"

// migrationLockTimeoutSeconds is how long a replica waits for another
// replica's migrations (polling once a second) before giving up.
const migrationLockTimeoutSeconds = 300

// MigratorConfig configures NewMigrator. Zero values mean the defaults.
type MigratorConfig struct {
	// LockID is the advisory lock key (default DefaultMigrationLockID).
	// Tests that migrate separate schemas of one database in parallel give
	// each its own key so they do not wait for one another.
	LockID int64
	// Logger receives goose's progress lines (default: discarded).
	Logger *slog.Logger
}

// Migrator applies and inspects the schema in package migrations. Create it
// with NewMigrator and Close it when done; it does not close the pool.
type Migrator struct {
	db       *sql.DB
	provider *goose.Provider
}

// NewMigrator returns a Migrator on pool, using goose's PostgreSQL session
// locker so that concurrent Up calls from several replicas are safe.
func NewMigrator(pool *pgxpool.Pool, cfg MigratorConfig) (*Migrator, error) {
	lockID := cfg.LockID
	if lockID == 0 {
		lockID = DefaultMigrationLockID
	}
	locker, err := lock.NewPostgresSessionLocker(
		lock.WithLockID(lockID),
		lock.WithLockTimeout(1, migrationLockTimeoutSeconds),
	)
	if err != nil {
		return nil, fmt.Errorf("migration lock: %w", err)
	}
	opts := []goose.ProviderOption{goose.WithSessionLocker(locker)}
	if cfg.Logger != nil {
		opts = append(opts, goose.WithSlog(cfg.Logger), goose.WithVerbose(true))
	}
	// goose speaks database/sql; this *sql.DB borrows the pool's
	// connections (and their search_path) without owning the pool.
	db := stdlib.OpenDBFromPool(pool)
	provider, err := goose.NewProvider(goose.DialectPostgres, db, migrations.FS, opts...)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("loading migrations: %w", err), db.Close())
	}
	return &Migrator{db: db, provider: provider}, nil
}

// Up applies every pending migration.
func (m *Migrator) Up(ctx context.Context) error {
	if _, err := m.provider.Up(ctx); err != nil {
		return fmt.Errorf("applying migrations: %w", err)
	}
	return nil
}

// DownTo rolls back migrations until the schema is at version (0: empty).
func (m *Migrator) DownTo(ctx context.Context, version int64) error {
	if _, err := m.provider.DownTo(ctx, version); err != nil {
		return fmt.Errorf("rolling back migrations to version %d: %w", version, err)
	}
	return nil
}

// Versions reports the schema's current version and the newest embedded one.
func (m *Migrator) Versions(ctx context.Context) (current, target int64, err error) {
	current, target, err = m.provider.GetVersions(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("reading migration versions: %w", err)
	}
	return current, target, nil
}

// Applied reports whether every embedded migration has been applied, for
// /readyz. It writes nothing: a database goose has never touched is simply
// not ready.
func (m *Migrator) Applied(ctx context.Context) (bool, error) {
	var exists bool
	if err := m.db.QueryRowContext(ctx, `SELECT to_regclass('goose_db_version') IS NOT NULL`).Scan(&exists); err != nil {
		return false, fmt.Errorf("checking migration table: %w", err)
	}
	if !exists {
		return false, nil
	}
	pending, err := m.provider.HasPending(ctx)
	if err != nil {
		return false, fmt.Errorf("checking pending migrations: %w", err)
	}
	return !pending, nil
}

// Close releases the Migrator's database/sql handle (not the pool).
func (m *Migrator) Close() error {
	if err := m.db.Close(); err != nil {
		return fmt.Errorf("closing migrator: %w", err)
	}
	return nil
}

// Migrate applies every pending migration on pool: what `flexd serve` does
// at start and `flexd migrate` does by default.
func Migrate(ctx context.Context, pool *pgxpool.Pool, cfg MigratorConfig) (err error) {
	m, err := NewMigrator(pool, cfg)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, m.Close()) }()
	return m.Up(ctx)
}
