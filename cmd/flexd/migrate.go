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
			"session lock makes concurrent runs safe). status prints the schema's version,\n" +
			"the newest embedded one, and exits 1 when migrations are pending.",
		Args:      cobra.MatchAll(cobra.MaximumNArgs(1), cobra.OnlyValidArgs),
		ValidArgs: []string{"up", "status"},
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			return bindEnv(cmd.Flags())
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			action := "up"
			if len(args) == 1 {
				action = args[0]
			}
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
				return err
			}
			defer func() {
				if cerr := m.Close(); cerr != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), "flexd: closing migrator:", cerr)
				}
			}()
			if action == "up" {
				if err := m.Up(ctx); err != nil {
					return err
				}
			}
			current, target, err := m.Versions(ctx)
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(cmd.OutOrStdout(), "schema version %d, newest embedded %d\n", current, target); err != nil {
				return fmt.Errorf("printing status: %w", err)
			}
			if current < target {
				return fmt.Errorf("%d migration(s) pending: run `flexd migrate up`", target-current)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&databaseURL, "database-url", "", "PostgreSQL URL (required)")
	annotateEnv(cmd.Flags())
	return cmd
}
