// Package pgtest gives tests a real, isolated PostgreSQL: each call opens a
// pool on a fresh schema of the database at TEST_DATABASE_URL (selected
// through search_path) and drops the schema when the test ends. A schema of
// its own, rather than a rolled-back transaction, is what lets a test use
// many concurrent connections (the state-guard race needs them) and lets
// tests run in parallel without seeing one another's rows.
//
// Without TEST_DATABASE_URL a test is skipped locally, but fails when CI is
// true: PostgreSQL-backed tests must never silently skip in CI. The
// project's scripts/test.sh starts a throwaway server and sets the variable.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"hash/fnv"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flexd/flexd/store/postgres"
)

// EnvURL names the environment variable holding the test database's URL.
const EnvURL = "TEST_DATABASE_URL"

// maxConns caps each test pool: enough for real concurrency in one test,
// small enough that parallel tests stay under the server's max_connections.
const maxConns = 8

// cleanupTimeout bounds dropping a schema once its test has ended.
const cleanupTimeout = 30 * time.Second

// URL returns TEST_DATABASE_URL. When it is unset the test is skipped, or
// fails if the CI environment variable is true.
func URL(tb testing.TB) string {
	tb.Helper()
	url := os.Getenv(EnvURL)
	if url != "" {
		return url
	}
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		tb.Fatalf("%s is not set and CI=true: PostgreSQL tests must run in CI (use scripts/test.sh)", EnvURL)
	}
	tb.Skipf("%s is not set; run scripts/test.sh to test against PostgreSQL", EnvURL)
	return ""
}

// NewEmptyPool returns a pool whose connections see only a fresh, empty
// schema; both are gone when the test ends. Use it to test migrations.
func NewEmptyPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	pool, _ := newSchemaPool(tb)
	return pool
}

// NewPool returns a pool on a fresh schema with every migration applied.
func NewPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	pool, schema := newSchemaPool(tb)
	if err := postgres.Migrate(tb.Context(), pool, postgres.MigratorConfig{LockID: LockID(schema)}); err != nil {
		tb.Fatalf("migrating test schema %s: %v", schema, err)
	}
	return pool
}

// LockID derives a migration advisory-lock key from a schema name, so
// parallel tests migrating their own schemas never wait for one another.
func LockID(schema string) int64 {
	h := fnv.New64a()
	h.Write([]byte(schema)) // a hash.Hash never fails to write
	return int64(h.Sum64() >> 1)
}

func newSchemaPool(tb testing.TB) (*pgxpool.Pool, string) {
	tb.Helper()
	url := URL(tb)
	ctx := tb.Context()
	schema := "flexd_test_" + randomHex(tb, 8)

	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Fatalf("connecting to %s: %v", EnvURL, err)
	}
	defer admin.Close(context.WithoutCancel(ctx))
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		tb.Fatalf("creating test schema: %v", err)
	}
	tb.Cleanup(func() { dropSchema(tb, url, schema) })

	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		tb.Fatalf("parsing %s: %v", EnvURL, err)
	}
	cfg.MaxConns = maxConns
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		tb.Fatalf("opening test pool: %v", err)
	}
	// Registered after dropSchema, so it runs first: close, then drop.
	tb.Cleanup(pool.Close)
	return pool, schema
}

// dropSchema runs in cleanup, after the test's context is cancelled.
func dropSchema(tb testing.TB, url, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		tb.Errorf("connecting to drop test schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		tb.Errorf("dropping test schema %s: %v", schema, err)
	}
}

func randomHex(tb testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		tb.Fatalf("random schema name: %v", err)
	}
	return hex.EncodeToString(b)
}
