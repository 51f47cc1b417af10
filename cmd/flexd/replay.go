package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/epochlog"
	"github.com/flexd/flexd/solver"
)

// replayFlags are the flags of `flexd replay`.
type replayFlags struct {
	log, objective, format, plot string
	policies                     []string
	quiet                        bool
}

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:   "replay --log FILE",
		Short: "Re-decide a logged cluster's epochs under other policies",
		Long: "Read an epoch log (GET /v1/clusters/{cluster}/epochs.jsonl: one epoch request\n" +
			"per line) and re-decide every epoch, exactly as the server decides it, under\n" +
			"the logged policies (\"logged\", which reproduces the stored decisions) and\n" +
			"under each of --policies. The report lists every epoch's allocations\n" +
			"(map/reduce slots per job) and each phase's objective value per policy, then\n" +
			"a summary per policy: how many epochs differ from \"logged\", the total\n" +
			"absolute slot difference, the largest single difference and where it is,\n" +
			"and the mean objective value per phase.\n\n" +
			"--objective scores every policy, \"logged\" included, under one metric instead\n" +
			"of the logged ones. Epochs must go up by one per cluster: a repeated,\n" +
			"decreasing or missing epoch is an error naming its line. Nothing is written\n" +
			"unless the whole replay succeeds.",
		Example: "  flexd replay --log c1.jsonl\n" +
			"  flexd replay --log c1.jsonl --policies fair --objective avg_stretch --format csv\n" +
			"  flexd replay --log c1.jsonl --plot last-epoch.png",
		Args: cobra.NoArgs,
		PreRunE: func(cmd *cobra.Command, _ []string) error {
			return bindEnv(cmd.Flags())
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReplay(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.log, "log", "", "the epoch log, JSON Lines (required)")
	fl.StringSliceVar(&f.policies, "policies", sim.DefaultPolicies(), "comma-separated policies to re-decide under ("+strings.Join(solver.Names(), ", ")+")")
	fl.StringVar(&f.objective, "objective", "", "score every policy under this metric instead of the logged objectives")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(epochlog.Formats(), "|"))
	fl.StringVar(&f.plot, "plot", "", "also draw the last epoch's map-phase plan under the first policy (.png or .svg)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar on stderr")
	annotateEnv(fl)
	return cmd
}

func runReplay(cmd *cobra.Command, f replayFlags) error {
	if f.log == "" {
		return usageError{errors.New("replay: --log FILE is required")}
	}
	if !slices.Contains(epochlog.Formats(), f.format) {
		return usageError{fmt.Errorf("replay: --format %q: want one of %s", f.format, strings.Join(epochlog.Formats(), ", "))}
	}
	if len(f.policies) == 0 {
		return usageError{errors.New("replay: --policies: name at least one policy")}
	}
	for _, p := range f.policies {
		if _, ok := solver.ByName(p); !ok || p == "" {
			return usageError{fmt.Errorf("replay: --policies: unknown policy %q (known: %s)", p, strings.Join(solver.Names(), ", "))}
		}
	}
	if f.objective != "" {
		if _, ok := penalty.Lookup(penalty.Metric(f.objective)); !ok {
			return usageError{fmt.Errorf("replay: --objective: unknown metric %q (known: %s)", f.objective, strings.Join(penalty.Names(), ", "))}
		}
	}
	if f.plot != "" {
		if err := checkPlotPath(f.plot); err != nil {
			return usageError{fmt.Errorf("replay: --plot: %w", err)}
		}
	}

	file, err := os.Open(f.log)
	if err != nil {
		return usageError{fmt.Errorf("replay: %w", err)}
	}
	entries, err := epochlog.Read(file)
	file.Close()
	if err != nil {
		return usageError{fmt.Errorf("replay: %s: %w", f.log, err)}
	}
	if len(entries) == 0 {
		return usageError{fmt.Errorf("replay: %s: the log has no epochs", f.log)}
	}

	bar := newLazyBar(cmd.ErrOrStderr(), f.quiet, "epochs")
	rep, err := epochlog.Replay(entries, epochlog.Options{
		Policies:  f.policies,
		Objective: penalty.Metric(f.objective),
		Progress:  bar.set,
	})
	bar.finish()
	if err != nil {
		// A request the policies refuse (an objective needing deadlines
		// the log lacks, optimal over too many jobs) is the input's
		// fault; anything else is a bug.
		var ve *solver.ValidationError
		if errors.As(err, &ve) || errors.Is(err, epochlog.ErrOptions) {
			return usageError{fmt.Errorf("replay: %s: %w", f.log, err)}
		}
		return fmt.Errorf("replay: %s: %w", f.log, err)
	}

	// Buffer the report so that a failure leaves stdout untouched.
	var out bytes.Buffer
	if err := epochlog.WriteReport(&out, f.format, rep); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if f.plot != "" {
		if err := plotReplay(f.plot, rep); err != nil {
			return fmt.Errorf("replay: %w", err)
		}
	}
	if _, err := out.WriteTo(cmd.OutOrStdout()); err != nil {
		return fmt.Errorf("replay: writing the report: %w", err)
	}
	return nil
}
