package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/postgres"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage API tokens",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newTokenCreateCmd())
	return cmd
}

// tokenBytes is a token's entropy: 256 bits, beyond guessing.
const tokenBytes = 32

// tokenPrefix makes flexd tokens recognisable to secret scanners and people.
const tokenPrefix = "flexd_"

// clusterNamePattern matches the cluster names the API accepts in paths.
var clusterNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

func newTokenCreateCmd() *cobra.Command {
	var (
		cluster     string
		admin       bool
		databaseURL string
	)
	cmd := &cobra.Command{
		Use:   "create (--cluster NAME | --admin)",
		Short: "Create an API token and print it once",
		Long: "Create a token for one cluster (it reads and writes that cluster's epochs only)\n" +
			"or an admin token (everything). The token is printed once on stdout; only its\n" +
			"SHA-256 is stored. Tokens live in PostgreSQL, so --database-url is required:\n" +
			"the in-memory store of a server without one cannot be reached from here.",
		Example: "  FLEXD_DATABASE_URL=postgres://flexd@db/flexd flexd token create --cluster c1",
		Args:    cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			return bindEnv(cmd.Flags())
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if admin == (cluster != "") {
				return usageError{errors.New("give exactly one of --cluster NAME or --admin")}
			}
			if cluster != "" && !clusterNamePattern.MatchString(cluster) {
				return usageError{fmt.Errorf("--cluster %q: want letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128", cluster)}
			}
			if databaseURL == "" {
				return usageError{errors.New("token create needs --database-url (or FLEXD_DATABASE_URL): " +
					"with the in-memory store a token would vanish when this command exits, " +
					"and a running `flexd serve` without a database keeps access control off on loopback")}
			}
			ctx := cmd.Context()
			pool, err := openDatabase(ctx, databaseURL, newLogger())
			if err != nil {
				return err
			}
			defer pool.Close()
			raw := make([]byte, tokenBytes)
			if _, err := rand.Read(raw); err != nil {
				return fmt.Errorf("drawing a token: %w", err)
			}
			token := tokenPrefix + base64.RawURLEncoding.EncodeToString(raw)
			t := store.Token{Hash: httpapi.HashToken(token), Cluster: cluster, Admin: admin, Created: time.Now().UTC()}
			if err := postgres.New(pool).CreateToken(ctx, t); err != nil {
				return fmt.Errorf("storing the token: %w", err)
			}
			scope := "cluster " + cluster
			if admin {
				scope = "admin"
			}
			if _, err := fmt.Fprintln(cmd.OutOrStdout(), token); err != nil {
				return fmt.Errorf("printing the token: %w", err)
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "created a %s token; it is shown only now: send it as \"Authorization: Bearer <token>\"\n", scope)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cluster, "cluster", "", "the cluster the token may read and write")
	fl.BoolVar(&admin, "admin", false, "create an admin token (every cluster)")
	fl.StringVar(&databaseURL, "database-url", "", "PostgreSQL URL (required)")
	annotateEnv(fl)
	return cmd
}
