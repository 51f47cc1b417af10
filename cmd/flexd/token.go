package main

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/httpapi"
	"github.com/flexd/flexd/store"
	"github.com/flexd/flexd/store/postgres"
)

func newTokenCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "token",
		Short: "Manage API tokens: create, list, revoke",
		Long: "Tokens live in PostgreSQL (--database-url or FLEXD_DATABASE_URL), hashed. A\n" +
			"revoked token is kept, marked, so revoking the last one never turns access\n" +
			"control off. A running server sees a revocation within its token cache's\n" +
			"lifetime (serve --token-cache-ttl, default 5s) and an expiry at once.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newTokenCreateCmd(), newTokenListCmd(), newTokenRevokeCmd())
	return cmd
}

// tokenStore opens the database for a token subcommand (applying the
// migrations, so the token columns exist) and returns the store.
func tokenStore(cmd *cobra.Command, databaseURL, sub string) (*postgres.Store, func(), error) {
	if databaseURL == "" {
		return nil, nil, usageError{fmt.Errorf("token %s needs --database-url (or FLEXD_DATABASE_URL): tokens live in PostgreSQL", sub)}
	}
	pool, err := openDatabase(cmd.Context(), databaseURL, newLogger())
	if err != nil {
		return nil, nil, err
	}
	return postgres.New(pool), pool.Close, nil
}

// parseExpiry reads --expires: a duration from now (720h, 90m) or an RFC
// 3339 time, which must be in the future.
func parseExpiry(v string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(v); err == nil {
		if d <= 0 {
			return time.Time{}, usageError{fmt.Errorf("--expires %q: want a positive duration (720h) or a future RFC 3339 time", v)}
		}
		return now.Add(d), nil
	}
	at, err := time.Parse(time.RFC3339, v)
	if err != nil {
		return time.Time{}, usageError{fmt.Errorf("--expires %q: want a duration (720h, 90m) or an RFC 3339 time (2026-12-31T00:00:00Z)", v)}
	}
	if !at.After(now) {
		return time.Time{}, usageError{fmt.Errorf("--expires %q: that time has passed", v)}
	}
	return at, nil
}

// tokenView is a token as `flexd token list` shows it.
type tokenView struct {
	ID       string     `json:"id"`
	Scope    string     `json:"scope"`
	State    string     `json:"state"`
	Created  time.Time  `json:"created_at"`
	LastUsed *time.Time `json:"last_used_at"`
	Expires  *time.Time `json:"expires_at"`
	Revoked  *time.Time `json:"revoked_at"`
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func viewToken(t store.Token, now time.Time) tokenView {
	scope := "cluster " + t.Cluster
	if t.Admin {
		scope = "admin"
	}
	return tokenView{ID: t.ID(), Scope: scope, State: t.State(now), Created: t.Created,
		LastUsed: timeOrNil(t.LastUsed), Expires: timeOrNil(t.Expires), Revoked: timeOrNil(t.Revoked)}
}

func newTokenListCmd() *cobra.Command {
	var databaseURL, format string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List API tokens: id, scope, state (active, expired, revoked), created, last used, expiry",
		Long: "List every token, revoked and expired ones included, oldest first. The id is\n" +
			"the start of the token's hash: it names the token for `flexd token revoke`\n" +
			"and cannot be used to authenticate. last used is recorded at most once per\n" +
			"server token-cache lifetime.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return usageError{fmt.Errorf("--format %q: want table or json", format)}
			}
			st, closeDB, err := tokenStore(cmd, databaseURL, "list")
			if err != nil {
				return err
			}
			defer closeDB()
			tokens, err := st.ListTokens(cmd.Context())
			if err != nil {
				return fmt.Errorf("listing tokens: %w", err)
			}
			now := time.Now().UTC()
			views := make([]tokenView, len(tokens))
			for i, t := range tokens {
				views[i] = viewToken(t, now)
			}
			return writeTokens(cmd.OutOrStdout(), format, views)
		},
	}
	cmd.Flags().StringVar(&databaseURL, "database-url", "", "PostgreSQL URL (required)")
	cmd.Flags().StringVar(&format, "format", "table", "output format: table|json")
	return cmd
}

// writeTokens writes the token list as an aligned table or a JSON array.
func writeTokens(w io.Writer, format string, views []tokenView) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(views); err != nil {
			return fmt.Errorf("writing the token list: %w", err)
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSCOPE\tSTATE\tCREATED\tLAST USED\tEXPIRES\tREVOKED")
	show := func(t *time.Time) string {
		if t == nil {
			return "-"
		}
		return t.UTC().Format(time.RFC3339)
	}
	for _, v := range views {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", v.ID, v.Scope, v.State, v.Created.UTC().Format(time.RFC3339),
			show(v.LastUsed), show(v.Expires), show(v.Revoked))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the token list: %w", err)
	}
	return nil
}

func newTokenRevokeCmd() *cobra.Command {
	var databaseURL string
	cmd := &cobra.Command{
		Use:   "revoke ID|TOKEN",
		Short: "Revoke an API token, by its id (flexd token list) or the token itself",
		Long: "Mark a token revoked. It is kept, so revoking the last token leaves access\n" +
			"control on. A running server refuses it (401) within its token cache's\n" +
			"lifetime (serve --token-cache-ttl, default 5s). Revoking twice keeps the first\n" +
			"time. An id must name exactly one token.",
		Example: "  flexd token revoke 3f2a9c01b4d7",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, closeDB, err := tokenStore(cmd, databaseURL, "revoke")
			if err != nil {
				return err
			}
			defer closeDB()
			ctx := cmd.Context()
			hash := httpapi.HashToken(args[0])
			if !strings.HasPrefix(args[0], tokenPrefix) {
				if !tokenIDPattern.MatchString(args[0]) {
					return usageError{fmt.Errorf("revoke %q: want a token id (hex, as `flexd token list` shows it) or a token (%s...)", args[0], tokenPrefix)}
				}
				tokens, err := st.ListTokens(ctx)
				if err != nil {
					return fmt.Errorf("listing tokens: %w", err)
				}
				var matches []string
				for _, t := range tokens {
					if strings.HasPrefix(t.Hash, args[0]) {
						matches = append(matches, t.Hash)
					}
				}
				switch len(matches) {
				case 0:
					return usageError{fmt.Errorf("revoke %s: no token has that id (flexd token list shows them)", args[0])}
				case 1:
					hash = matches[0]
				default:
					return usageError{fmt.Errorf("revoke %s: %d tokens start with that id; give more of it", args[0], len(matches))}
				}
			}
			t, err := st.RevokeToken(ctx, hash, time.Now().UTC())
			if errors.Is(err, store.ErrNotFound) {
				return usageError{errors.New("revoke: no such token")}
			}
			if err != nil {
				return fmt.Errorf("revoking the token: %w", err)
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "revoked %s (%s) at %s\n", t.ID(), viewToken(t, time.Now()).Scope, t.Revoked.Format(time.RFC3339))
			return err
		},
	}
	cmd.Flags().StringVar(&databaseURL, "database-url", "", "PostgreSQL URL (required)")
	return cmd
}

// tokenIDPattern matches a token id or a longer prefix of a hash.
var tokenIDPattern = regexp.MustCompile(`^[0-9a-f]{6,64}$`)

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
		expires     string
	)
	cmd := &cobra.Command{
		Use:   "create (--cluster NAME | --admin)",
		Short: "Create an API token and print it once",
		Long: "Create a token for one cluster (it reads and writes that cluster's epochs only)\n" +
			"or an admin token (everything). The token is printed once on stdout; only its\n" +
			"SHA-256 is stored. Tokens live in PostgreSQL, so --database-url is required:\n" +
			"the in-memory store of a server without one cannot be reached from here.\n" +
			"--expires makes it stop working at a time (a duration from now, or RFC 3339).",
		Example: "  FLEXD_DATABASE_URL=postgres://flexd@db/flexd flexd token create --cluster c1\n" +
			"  flexd token create --admin --expires 720h",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if admin == (cluster != "") {
				return usageError{errors.New("give exactly one of --cluster NAME or --admin")}
			}
			if cluster != "" && !clusterNamePattern.MatchString(cluster) {
				return usageError{fmt.Errorf("--cluster %q: want letters, digits, '.', '_' or '-', starting with a letter or digit, at most 128", cluster)}
			}
			now := time.Now().UTC()
			var expiresAt time.Time
			if expires != "" {
				var err error
				if expiresAt, err = parseExpiry(expires, now); err != nil {
					return err
				}
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
			t := store.Token{Hash: httpapi.HashToken(token), Cluster: cluster, Admin: admin, Created: now, Expires: expiresAt}
			if err := postgres.New(pool).CreateToken(ctx, t); err != nil {
				return fmt.Errorf("storing the token: %w", err)
			}
			scope := "a cluster " + cluster
			if admin {
				scope = "an admin"
			}
			if _, err := fmt.Fprintln(cmd.OutOrStdout(), token); err != nil {
				return fmt.Errorf("printing the token: %w", err)
			}
			until := "never expires"
			if !expiresAt.IsZero() {
				until = "expires " + expiresAt.Format(time.RFC3339)
			}
			_, err = fmt.Fprintf(cmd.ErrOrStderr(), "created %s token, id %s, %s; it is shown only now: send it as \"Authorization: Bearer <token>\"\n", scope, t.ID(), until)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&cluster, "cluster", "", "the cluster the token may read and write")
	fl.BoolVar(&admin, "admin", false, "create an admin token (every cluster)")
	fl.StringVar(&databaseURL, "database-url", "", "PostgreSQL URL (required)")
	fl.StringVar(&expires, "expires", "", "when the token stops working: a duration from now (720h) or an RFC 3339 time; empty: never")
	return cmd
}
