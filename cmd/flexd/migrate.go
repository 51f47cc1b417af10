package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/store/postgres"
)

func newMigrateCmd() *cobra.Command {
	var databaseURL string
	cmd := &cobra.Command{
		Use:   "migrate [up|status]",
		Short: "Apply the embedded PostgreSQL migrations (up, the default) or report their status",
		Long: "up applies every pending migration (serve does this at start too; goose's\n" +
			"session lock makes concurrent runs safe); migrate alone is migrate up. status\n" +
			"prints the schema's version and the newest embedded one, and exits 3 when\n" +
			"migrations are pending (1 is a failure, such as the database unreachable).",
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrate(cmd, databaseURL, true)
		},
	}
	cmd.PersistentFlags().StringVar(&databaseURL, "database-url", "", "PostgreSQL URL (required)")
	cmd.AddCommand(&cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration, then print the schema's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrate(cmd, databaseURL, true)
		},
	}, &cobra.Command{
		Use:   "status",
		Short: "Print the schema's version and the newest embedded one; exit 3 when migrations are pending",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runMigrate(cmd, databaseURL, false)
		},
	})
	return cmd
}

// runMigrate applies the migrations when up, then prints the versions; a
// schema behind the embedded migrations is a pendingError (exit 3).
func runMigrate(cmd *cobra.Command, databaseURL string, up bool) error {
	if databaseURL == "" {
		return usageError{errors.New("migrate needs --database-url (or FLEXD_DATABASE_URL); the in-memory store has no schema")}
	}
	ctx := cmd.Context()
	pool, err := connect(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	m, err := postgres.NewMigrator(pool, postgres.MigratorConfig{Logger: newLogger()})
	if err != nil {
		return fmt.Errorf("preparing migrations: %w", err)
	}
	defer func() {
		if cerr := m.Close(); cerr != nil {
			fmt.Fprintln(cmd.ErrOrStderr(), "flexd: closing migrator:", cerr)
		}
	}()
	if up {
		if err := m.Up(ctx); err != nil {
			return fmt.Errorf("applying migrations: %w", err)
		}
	}
	current, target, err := m.Versions(ctx)
	if err != nil {
		return fmt.Errorf("reading the schema's version: %w", err)
	}
	if _, err := fmt.Fprintf(cmd.OutOrStdout(), "schema version %d, newest embedded %d\n", current, target); err != nil {
		return fmt.Errorf("printing status: %w", err)
	}
	if current < target {
		return pendingError{n: target - current}
	}
	return nil
}
