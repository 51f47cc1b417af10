// Command flexd is the FLEX slot-allocation optimizer: an HTTP service a
// Hadoop or YARN shim calls every epoch (serve), the solver without a server
// (solve), policy comparison by simulation (simulate) and by re-deciding
// logged epochs (replay), and the operations around them (migrate, token,
// version). Every flag has a FLEXD_* environment default.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// exitUsage is the status for bad input or flags (the command's fault).
const exitUsage = 2

// usageError marks errors caused by the caller's input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "flexd",
		Short:         "FLEX slot-allocation optimizer for MapReduce clusters",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCmd(), newSolveCmd(), newSimulateCmd(), newReplayCmd(),
		newMigrateCmd(), newTokenCmd(), newPlanCmd(), newVersionCmd())
	return root
}

func main() {
	err := newRootCmd().Execute()
	if err == nil {
		return
	}
	fmt.Fprintln(os.Stderr, "flexd:", err)
	var ue usageError
	if errors.As(err, &ue) {
		os.Exit(exitUsage)
	}
	os.Exit(1)
}
