// Command flexd is the FLEX slot-allocation optimizer: an HTTP service a
// Hadoop or YARN shim calls every epoch (serve), the solver without a server
// (solve), policy comparison by simulation (simulate) and by re-deciding
// logged epochs (replay), and the operations around them (migrate, token,
// version).
//
// Every flag of every command has a FLEXD_* environment default, generated
// the same way for all (envName): the flags of serve, migrate and token,
// which share a database and an address, and the global --log-level and
// --log-format, by their name alone (FLEXD_DATABASE_URL,
// FLEXD_LOG_LEVEL); every other command's by the command's path and the
// name (FLEXD_REPLAY_LOG, FLEXD_SIMULATE_RUN_JOBS, FLEXD_SOLVE_EFFORT), so
// that one command's setting never changes another's. `flexd <cmd> --help`
// names each variable.
//
// Exit status: 0 success, 1 failure, 2 usage or bad input (a mistyped
// command or flag, a bad value, a refused request), 3 migrations pending
// (migrate status); `flexd --help` lists them.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Exit statuses; `flexd --help` lists them (exitCodesHelp).
const (
	exitOK      = 0
	exitFailure = 1
	// exitUsage is the status for bad input or flags (the caller's fault).
	exitUsage = 2
	// exitPending is migrate status's answer when migrations are pending.
	exitPending = 3
)

// exitCodesHelp is the exit status section of `flexd --help`; TestExitCodes
// reads the codes back from it.
const exitCodesHelp = `Exit status:
  0  success
  1  failure (the database unreachable, a write failed, lines of solve --jsonl refused, ...)
  2  usage or bad input: an unknown command or flag, a bad flag value, an unreadable or invalid input
  3  migrations pending (flexd migrate status)`

// usageError marks errors caused by the caller's input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// pendingError is migrate status's error when migrations are pending:
// exit status 3.
type pendingError struct{ n int64 }

func (e pendingError) Error() string {
	return fmt.Sprintf("%d migration(s) pending: run `flexd migrate up`", e.n)
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "flexd",
		Short: "FLEX slot-allocation optimizer for MapReduce clusters",
		Long: "flexd answers a Hadoop or YARN scheduler's epochs with how many slots each job\n" +
			"should hold (serve), solves without a server (solve), compares policies by\n" +
			"simulation (simulate) and on logged epochs (replay). Every flag has a FLEXD_*\n" +
			"environment default, named in each command's --help.\n\n" + exitCodesHelp,
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	addLogFlags(root)
	root.AddCommand(newServeCmd(), newSolveCmd(), newSimulateCmd(), newReplayCmd(),
		newMigrateCmd(), newTokenCmd(), newPlanCmd(), newVersionCmd())
	root.SetHelpCommand(newHelpCmd())
	// A flag cobra cannot parse (unknown, or a bad value) is a usage
	// error; cobra's own would exit 1.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError{fmt.Errorf("%w (see `%s --help`)", err, c.CommandPath())}
	})
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := bindEnv(cmd, cmd.Flags()); err != nil {
			return err
		}
		return setupLogging(cmd)
	}
	// cobra adds `completion` only at Execute; add it now so that it is
	// strict and annotated like the rest.
	root.InitDefaultCompletionCmd()
	strictGroups(root)
	annotateAll(root)
	return root
}

// strictGroups makes every command that groups others (and the root)
// refuse an unknown subcommand with cobra's suggestions and exit status 2;
// cobra would print the help and exit 0. A group without arguments prints
// its help (or runs, for migrate). Every other command's wrong positional
// arguments become usage errors (exit 2).
func strictGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		strictGroups(sub)
	}
	if !c.HasSubCommands() || c.Name() == "help" {
		// Wrong positional arguments are the caller's fault too.
		if check := c.Args; check != nil {
			c.Args = func(cmd *cobra.Command, args []string) error {
				if err := check(cmd, args); err != nil {
					return usageError{fmt.Errorf("%w (see `%s --help`)", err, cmd.CommandPath())}
				}
				return nil
			}
		}
		return
	}
	run := c.RunE
	c.Args = cobra.ArbitraryArgs
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			if run != nil {
				return run(cmd, args)
			}
			return cmd.Help()
		}
		return unknownCommand(cmd, args[0])
	}
}

// unknownCommand is the usage error for a mistyped subcommand of parent,
// with cobra's suggestions.
func unknownCommand(parent *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, parent.CommandPath())
	if parent.SuggestionsMinimumDistance <= 0 {
		parent.SuggestionsMinimumDistance = 2 // cobra's default, set only on the root
	}
	if sugg := parent.SuggestionsFor(name); len(sugg) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(sugg, "\n\t")
	}
	var names []string
	for _, c := range parent.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	msg += fmt.Sprintf("\n\n%s has: %s (see `%s --help`)", parent.CommandPath(), strings.Join(names, ", "), parent.CommandPath())
	return usageError{errors.New(msg)}
}

// newHelpCmd is `flexd help [command]`: an unknown topic is a usage
// error with suggestions, where cobra's would print help and exit 0.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		Args:  cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			target := c.Root()
			for _, name := range args {
				next := findSub(target, name)
				if next == nil {
					return unknownCommand(target, name)
				}
				target = next
			}
			target.SetOut(c.OutOrStdout())
			return target.Help()
		},
	}
}

// findSub is parent's subcommand called name (or aliased), or nil.
func findSub(parent *cobra.Command, name string) *cobra.Command {
	for _, c := range parent.Commands() {
		if c.Name() == name || c.HasAlias(name) {
			return c
		}
	}
	return nil
}

// exitCode maps a command's error to the process's exit status.
func exitCode(err error) int {
	var ue usageError
	var pe pendingError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &pe):
		return exitPending
	case errors.As(err, &ue):
		return exitUsage
	}
	return exitFailure
}

// run executes flexd with args, writing to stdout and stderr, and returns
// the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.Execute()
	if err != nil {
		fmt.Fprintln(stderr, "flexd:", err)
	}
	return exitCode(err)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}
