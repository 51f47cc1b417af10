package postgres_test

import (
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flexd/flexd/store/pgtest"
	"github.com/flexd/flexd/store/postgres"
)

// tables lists the schema's tables (in the pool's search_path).
func tables(t *testing.T, pool *pgxpool.Pool) []string {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> 'goose_db_version' ORDER BY tablename`)
	if err != nil {
		t.Fatalf("listing tables: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatalf("scanning table name: %v", err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("listing tables: %v", err)
	}
	return out
}

// TestMigrationsRoundTrip applies every migration, rolls all back, and
// applies them again, checking readiness and the tables at each step: a
// Down that leaves something behind makes the second Up fail.
func TestMigrationsRoundTrip(t *testing.T) {
	pool := pgtest.NewEmptyPool(t)
	ctx := t.Context()
	m, err := postgres.NewMigrator(pool, postgres.MigratorConfig{LockID: 42_4242})
	if err != nil {
		t.Fatalf("NewMigrator: %v", err)
	}
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	all := []string{"cluster_state", "epochs", "tokens"}
	steps := []struct {
		name       string
		run        func() error
		wantReady  bool
		wantTables []string
	}{
		{"fresh schema", func() error { return nil }, false, nil},
		{"up", func() error { return m.Up(ctx) }, true, all},
		{"up again is a no-op", func() error { return m.Up(ctx) }, true, all},
		{"down to zero", func() error { return m.DownTo(ctx, 0) }, false, nil},
		{"up after down", func() error { return m.Up(ctx) }, true, all},
	}
	for _, step := range steps {
		if err := step.run(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		ready, err := m.Applied(ctx)
		if err != nil || ready != step.wantReady {
			t.Errorf("%s: Applied() = %v, %v; want %v", step.name, ready, err, step.wantReady)
		}
		if got := tables(t, pool); !equal(got, step.wantTables) {
			t.Errorf("%s: tables %v, want %v", step.name, got, step.wantTables)
		}
	}
	current, target, err := m.Versions(ctx)
	if err != nil || current != target || target < 1 {
		t.Errorf("Versions() = %d, %d, %v; want current == target >= 1", current, target, err)
	}
}

// TestMigrateConcurrently starts several "replicas" migrating one schema at
// once: the session lock must let exactly one apply and the rest find
// nothing pending.
func TestMigrateConcurrently(t *testing.T) {
	pool := pgtest.NewEmptyPool(t)
	const replicas = 4
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { errs[i] = postgres.Migrate(t.Context(), pool, postgres.MigratorConfig{LockID: 42_4243}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("replica %d: Migrate: %v", i, err)
		}
	}
	m, err := postgres.NewMigrator(pool, postgres.MigratorConfig{})
	if err != nil {
		t.Fatalf("NewMigrator: %v", err)
	}
	defer m.Close()
	if ok, err := m.Applied(t.Context()); err != nil || !ok {
		t.Errorf("Applied() = %v, %v; want true", ok, err)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
