package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sharedEnvCommands are the commands whose flags' variables are named by
// the flag alone: serve, migrate and token share a database (and serve's
// settings are the service's), so FLEXD_DATABASE_URL serves all three.
var sharedEnvCommands = map[string]bool{"serve": true, "migrate": true, "token": true}

// envName is the environment variable that defaults flag of cmd: FLEXD_
// and the flag's name in upper snake case for the global flags and those
// of serve, migrate and token (--database-url: FLEXD_DATABASE_URL,
// --log-level: FLEXD_LOG_LEVEL); for every other command the command's
// path comes first (replay --log: FLEXD_REPLAY_LOG, simulate run --jobs:
// FLEXD_SIMULATE_RUN_JOBS), so one command's setting never reaches another.
func envName(cmd *cobra.Command, flag string) string {
	snake := func(s string) string { return strings.ToUpper(strings.ReplaceAll(s, "-", "_")) }
	if cmd.Root().PersistentFlags().Lookup(flag) != nil {
		return "FLEXD_" + snake(flag)
	}
	var path []string
	for c := cmd; c != nil; c = c.Parent() {
		if c.HasParent() || c.Name() != "flexd" {
			path = append([]string{c.Name()}, path...)
		}
	}
	if len(path) == 0 || sharedEnvCommands[path[0]] {
		return "FLEXD_" + snake(flag)
	}
	return "FLEXD_" + snake(strings.Join(path, "_")) + "_" + snake(flag)
}

// annotateAll adds each flag's variable to its help line, on every command
// of the tree, so `flexd <cmd> --help` lists them.
func annotateAll(c *cobra.Command) {
	note := func(f *pflag.Flag) {
		if f.Name != "help" && f.Name != "version" && !strings.Contains(f.Usage, "(env FLEXD_") {
			f.Usage += " (env " + envName(c, f.Name) + ")"
		}
	}
	c.LocalNonPersistentFlags().VisitAll(note)
	c.PersistentFlags().VisitAll(note)
	for _, sub := range c.Commands() {
		annotateAll(sub)
	}
}

// bindEnv sets every flag of cmd not given on the command line from its
// FLEXD_* variable, when set. A value the flag cannot parse is a usage
// error naming the variable.
func bindEnv(cmd *cobra.Command, fl *pflag.FlagSet) error {
	var errs []error
	fl.VisitAll(func(f *pflag.Flag) {
		if f.Changed || f.Name == "help" || f.Name == "version" {
			return
		}
		name := envName(cmd, f.Name)
		v, ok := os.LookupEnv(name)
		if !ok {
			return
		}
		if err := fl.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: %w", name, v, err))
		}
	})
	if len(errs) > 0 {
		return usageError{errors.Join(errs...)}
	}
	return nil
}
