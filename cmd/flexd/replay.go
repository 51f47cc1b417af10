package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"github.com/flexd/flexd/sim/cluster"
	"math"
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
	quiet, simulate, allowGaps   bool
	epoch, taskCV                float64
	estimate                     string
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
			"of the logged ones. Epochs must increase per cluster: a repeated or\n" +
			"decreasing epoch is an error naming its line (exit 2). A missing epoch (a\n" +
			"gap) is one too unless --allow-gaps: the server accepts gaps and decides\n" +
			"the epoch after one from the state the last stored epoch left, and so does\n" +
			"the replay, so \"logged\" still reproduces the stored decisions; the report\n" +
			"then counts the gaps and missing epochs and names each gap. Nothing is\n" +
			"written unless the whole replay succeeds.",
		Example: "  flexd replay --log c1.jsonl\n" +
			"  flexd replay --log c1.jsonl --allow-gaps\n" +
			"  flexd replay --log c1.jsonl --policies fair --objective avg_stretch --format csv\n" +
			"  flexd replay --log c1.jsonl --plot last-epoch.png",
		Args: cobra.NoArgs,
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
	fl.BoolVar(&f.allowGaps, "allow-gaps", false, "accept missing epochs (as the server does), carrying each policy's state across a gap; the report names the gaps")
	fl.BoolVar(&f.simulate, "simulate", false, "also re-run the logged workload in the closed-loop simulator under each policy")
	fl.Float64Var(&f.epoch, "epoch", 0, "with --simulate: seconds between decisions (default: the log's epoch_length)")
	fl.StringVar(&f.estimate, "estimate", cluster.Oracle, "with --simulate: what the policies are told of remaining work: oracle, extrapolate or extrapolate_elapsed (FLEX 4.2 estimates from task statistics)")
	fl.Float64Var(&f.taskCV, "task-cv", 0, "with --simulate and an estimate: coefficient of variation of the task durations")
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
	if f.epoch < 0 || math.IsNaN(f.epoch) {
		return usageError{fmt.Errorf("replay: --epoch %v: want seconds > 0 (0: the log's epoch length)", f.epoch)}
	}

	file, err := os.Open(f.log)
	if err != nil {
		return usageError{fmt.Errorf("replay: %w", err)}
	}
	read := epochlog.Read
	if f.allowGaps {
		read = epochlog.ReadAllowingGaps
	}
	entries, err := read(file)
	file.Close()
	if errors.Is(err, epochlog.ErrGap) {
		return usageError{fmt.Errorf("replay: %s: %w (the server accepts gaps: pass --allow-gaps to replay across them)", f.log, err)}
	}
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
	if f.simulate {
		if err := simulateLog(&out, f, entries); err != nil {
			return err
		}
	}
	if _, err := out.WriteTo(cmd.OutOrStdout()); err != nil {
		return fmt.Errorf("replay: writing the report: %w", err)
	}
	return nil
}

// simulateLog re-runs the workload of the log's first cluster in the
// closed-loop simulator (sim/cluster) under each policy: every job arrives
// when it was submitted (times shifted so the first arrival is 0) with the
// whole work of each phase as the log first reports it (total_work when
// given), its task counts (else its max) and its map minimum; the cluster
// keeps its first logged slots and the log's epoch length.
func simulateLog(out *bytes.Buffer, f replayFlags, entries []epochlog.Entry) error {
	w := epochlog.Reconstruct(entries)
	if len(w.Clusters) == 0 {
		return usageError{fmt.Errorf("replay --simulate: %s: no cluster in the log", f.log)}
	}
	c := w.Clusters[0]
	period := f.epoch
	if period == 0 {
		period = entries[0].Request.EpochLength
	}
	if !(period > 0) {
		period = 0.5
	}
	start := math.Inf(1)
	for _, j := range w.Jobs {
		if j.Cluster == c.Name {
			start = math.Min(start, j.Arrival)
		}
	}
	var jobs []cluster.Job
	skipped := 0
	for _, j := range w.Jobs {
		if j.Cluster != c.Name {
			continue
		}
		if !j.Map.Seen || !(j.Map.TotalWork > 0) {
			skipped++ // first seen in its reduce phase: its maps are unknown
			continue
		}
		cj := cluster.Job{ID: j.ID, Arrival: j.Arrival - start, Weight: j.Weight, Pool: j.Pool,
			MapWork: j.Map.TotalWork, MapTasks: max(1, cmp.Or(j.Map.Tasks, j.Map.Max)), Min: j.Map.Min,
			Deadline: j.Deadline - start, HasDeadline: j.HasDeadline}
		if j.Reduce.Seen && j.Reduce.TotalWork > 0 {
			cj.ReduceWork = j.Reduce.TotalWork
			cj.ReduceTasks = max(1, cmp.Or(j.Reduce.Tasks, j.Reduce.Max))
		}
		jobs = append(jobs, cj)
	}
	if len(jobs) == 0 {
		return usageError{fmt.Errorf("replay --simulate: %s: no job of cluster %q shows its map phase", f.log, c.Name)}
	}
	variants := make([]cluster.Variant, len(f.policies))
	for i, pol := range f.policies {
		variants[i] = cluster.Variant{Label: pol, Config: cluster.Config{
			MapSlots: max(1, c.Slots.Map), ReduceSlots: max(1, c.Slots.Reduce), Epoch: period, Policy: pol,
			Metric: cmp.Or(penalty.Metric(f.objective), penalty.AvgResponseTime), SlowStart: 1,
			Estimate: f.estimate, TaskTimeCV: f.taskCV,
		}}
	}
	results, err := cluster.RunAll(variants, jobs, 0, nil)
	if err != nil {
		return fmt.Errorf("replay --simulate: %w", err)
	}
	rows := make([]runRow, len(results))
	for i, r := range results {
		rows[i] = rowOf(r, false)
	}
	if f.format == "table" {
		fmt.Fprintf(out, "\nclosed loop (cluster %q: %d jobs, %d first seen after their maps left out; %d map + %d reduce slots, epoch %g s)\n",
			c.Name, len(jobs), skipped, c.Slots.Map, c.Slots.Reduce, period)
	}
	if err := writeRunRows(out, f.format, rows, false); err != nil {
		return fmt.Errorf("replay --simulate: %w", err)
	}
	return nil
}
