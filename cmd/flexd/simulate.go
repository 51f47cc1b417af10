package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/cluster"
	"github.com/flexd/flexd/sim/swim"
	"github.com/flexd/flexd/solver"
)

func newSimulateCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Compare allocation policies by simulation",
		Long: "Compare flexd's allocation policies by simulation: `study` reproduces the\n" +
			"synthetic experiments of FLEX section 4.1 (each policy against OPT), and\n" +
			"`trace` converts a SWIM workload trace into jobs and summarises it.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newSimulateStudyCmd(), newSimulateTraceCmd(), newSimulateRunCmd())
	return cmd
}

// studyFlags are the flags of `flexd simulate study`.
type studyFlags struct {
	jobs, slots, instances int
	small, slack           float64
	metrics, policies      []string
	seed                   uint64
	format, sweep          string
	values                 []float64
	quiet                  bool
}

func newSimulateStudyCmd() *cobra.Command {
	def := sim.DefaultWorkload()
	f := studyFlags{}
	cmd := &cobra.Command{
		Use:   "study",
		Short: "FLEX section 4.1: FLEX, FAIR and FIFO against OPT on random instances",
		Long: "Generate random phase problems as in FLEX section 4.1 (bimodal work, total\n" +
			"work 10*S slot-seconds, task size 0.3 slot-seconds, minima drawn so they sum\n" +
			"to (1 - slack) * S on average) and report, per metric and policy, the\n" +
			"average and worst ratio of the policy's objective to OPT's (the best MPS\n" +
			"order, found by exhaustive search, so --jobs is at most 10). Instances where\n" +
			"OPT is not positive are skipped, as in the paper. --sweep slack|small gives\n" +
			"the rows of Fig. 5a / 5b, one block per value.",
		Example: "  flexd simulate study --instances 100\n" +
			"  flexd simulate study --sweep slack --metrics avg_response_time --format csv",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runStudy(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.jobs, "jobs", def.Jobs, "jobs per instance, J (OPT is exhaustive: at most 10)")
	fl.IntVar(&f.slots, "slots", def.Slots, "slots, S")
	fl.IntVar(&f.instances, "instances", 100, "instances per study (per sweep value)")
	fl.Float64Var(&f.small, "small", def.Small, "share of small jobs, in [0, 1]")
	fl.Float64Var(&f.slack, "slack", def.Slack, "share of slots left beyond the minima, in [0, 1]")
	fl.StringSliceVar(&f.metrics, "metrics", nil, "comma-separated metrics (default: the whole menu; avg_response_time with --sweep)")
	fl.StringSliceVar(&f.policies, "policies", sim.DefaultPolicies(), "comma-separated policies compared with OPT")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed: the same seed gives the same numbers")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(sim.Formats(), "|"))
	fl.StringVar(&f.sweep, "sweep", "", "sweep a parameter, slack or small (Fig. 5a / 5b)")
	fl.Float64SliceVar(&f.values, "values", nil, "sweep values (default: slack 0.05..0.95, small 0..0.9, steps of 0.1)")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar on stderr")
	return cmd
}

func runStudy(cmd *cobra.Command, f studyFlags) error {
	if !slices.Contains(sim.Formats(), f.format) {
		return usageError{fmt.Errorf("--format %q: want one of %s", f.format, strings.Join(sim.Formats(), ", "))}
	}
	if f.jobs > sim.MaxOptJobs {
		return usageError{fmt.Errorf("--jobs %d: OPT is an exhaustive search over J! orders and takes at most %d jobs", f.jobs, sim.MaxOptJobs)}
	}
	if f.instances < 1 {
		return usageError{fmt.Errorf("--instances %d: want at least 1", f.instances)}
	}
	if f.sweep != "" && f.sweep != "slack" && f.sweep != "small" {
		return usageError{fmt.Errorf("--sweep %q: want slack or small", f.sweep)}
	}
	if f.sweep == "" && len(f.values) > 0 {
		return usageError{errors.New("--values needs --sweep")}
	}
	cfg := sim.StudyConfig{
		Workload:  sim.Workload{Jobs: f.jobs, Slots: f.slots, Small: f.small, Slack: f.slack},
		Instances: f.instances,
		Policies:  f.policies,
	}
	for _, m := range f.metrics {
		if m == "all" {
			cfg.Metrics = nil
			break
		}
		if _, ok := penalty.Lookup(penalty.Metric(m)); !ok {
			return usageError{fmt.Errorf("--metrics: unknown metric %q (known: %s)", m, strings.Join(penalty.Names(), ", "))}
		}
		cfg.Metrics = append(cfg.Metrics, penalty.Metric(m))
	}
	if f.sweep != "" && len(f.metrics) == 0 {
		cfg.Metrics = []penalty.Metric{penalty.AvgResponseTime}
	}
	if err := cfg.Validate(); err != nil {
		return usageError{err}
	}
	values := f.values
	if f.sweep != "" && len(values) == 0 {
		values = sim.SweepValues(f.sweep)
	}
	for _, v := range values {
		if !(v >= 0 && v <= 1) {
			return usageError{fmt.Errorf("--values: %v is not a share in [0, 1]", v)}
		}
	}
	bar := newLazyBar(cmd.ErrOrStderr(), f.quiet, "instances")
	cfg.Progress = bar.set
	var rows []sim.Row
	var err error
	if f.sweep == "" {
		rows, err = sim.RunStudy(cfg, f.seed)
	} else {
		rows, err = sim.RunSweep(cfg, f.seed, f.sweep, values)
	}
	bar.finish()
	if err != nil {
		return err
	}
	return sim.WriteRows(cmd.OutOrStdout(), f.format, rows)
}

// lazyBar is a progress bar on stderr that appears only when a run has
// lasted a second (short runs stay silent) and only on a terminal.
type lazyBar struct {
	mu      sync.Mutex
	w       io.Writer
	enabled bool
	desc    string
	start   time.Time
	bar     *progressbar.ProgressBar
}

func newLazyBar(w io.Writer, quiet bool, desc string) *lazyBar {
	f, ok := w.(*os.File)
	return &lazyBar{
		w:       w,
		enabled: !quiet && ok && term.IsTerminal(int(f.Fd())),
		desc:    desc,
		start:   time.Now(),
	}
}

func (b *lazyBar) set(done, total int) {
	if !b.enabled {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar == nil {
		if time.Since(b.start) < time.Second {
			return
		}
		b.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(b.desc),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond),
		)
	}
	_ = b.bar.Set(done)
}

func (b *lazyBar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.bar != nil {
		_ = b.bar.Finish()
	}
}

// convFlags are the SWIM conversion constants as flags, in MiB and seconds.
type convFlags struct{ blockMB, mapMBps, reduceMBps, reduceMB, minTask float64 }

func (c *convFlags) register(fl *pflag.FlagSet) {
	def := swim.DefaultConversion()
	fl.Float64Var(&c.blockMB, "block-mb", def.BlockBytes/swim.MiB, "map input per map task, MiB (one map task per block, at least one)")
	fl.Float64Var(&c.mapMBps, "map-mbps", def.MapRate/swim.MiB, "map input processed per second by one map slot, MiB/s")
	fl.Float64Var(&c.reduceMBps, "reduce-mbps", def.ReduceRate/swim.MiB, "shuffle plus output handled per second by one reduce slot, MiB/s")
	fl.Float64Var(&c.reduceMB, "reduce-mb", def.ReduceBytes/swim.MiB, "shuffle input per reduce task, MiB (none without shuffle)")
	fl.Float64Var(&c.minTask, "min-task-seconds", def.MinTaskWork, "least work of one task, slot-seconds")
}

func (c convFlags) String() string {
	return fmt.Sprintf("%g MiB per map task, map %g MiB/s per slot, shuffle+output %g MiB/s per reduce slot, %g MiB shuffle per reduce task, at least %g slot-seconds per task",
		c.blockMB, c.mapMBps, c.reduceMBps, c.reduceMB, c.minTask)
}

// readTrace validates the constants and reads a SWIM trace with them.
func (c convFlags) readTrace(path string) ([]swim.Job, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"--block-mb", c.blockMB}, {"--map-mbps", c.mapMBps}, {"--reduce-mbps", c.reduceMBps},
		{"--reduce-mb", c.reduceMB}, {"--min-task-seconds", c.minTask}} {
		if !(f.v > 0) || math.IsInf(f.v, 0) {
			return nil, usageError{fmt.Errorf("%s %v: want a positive number", f.name, f.v)}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	jobs, err := swim.Read(f, swim.Conversion{
		BlockBytes: c.blockMB * swim.MiB, MapRate: c.mapMBps * swim.MiB, ReduceRate: c.reduceMBps * swim.MiB,
		ReduceBytes: c.reduceMB * swim.MiB, MinTaskWork: c.minTask,
	})
	if err != nil {
		return nil, usageError{fmt.Errorf("%s: %w", path, err)}
	}
	return jobs, nil
}

func newSimulateTraceCmd() *cobra.Command {
	var conv convFlags
	cmd := &cobra.Command{
		Use:   "trace FILE",
		Short: "Convert a SWIM trace into map and reduce work and summarise it",
		Long: "Read a SWIM workload trace (tab-separated: name, submit, gap, input,\n" +
			"shuffle and output bytes), convert each job's bytes into tasks and\n" +
			"slot-seconds with the stated constants, and print the totals together with\n" +
			"the constants used. A malformed line is an error naming its line number.",
		Example: "  flexd simulate trace sim/testdata/swim/FB-2009_samples_24_times_1hr_0.tsv --block-mb 128",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			jobs, err := conv.readTrace(args[0])
			if err != nil {
				return err
			}
			s := swim.Summarize(jobs)
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "constants: %s\n", conv)
			fmt.Fprintf(out, "jobs %d (map-only %d), submitted %g..%g s\n", s.Jobs, s.MapOnly, s.FirstSubmit, s.LastSubmit)
			fmt.Fprintf(out, "map tasks %d, reduce tasks %d\n", s.MapTasks, s.ReduceTasks)
			_, err = fmt.Fprintf(out, "map work %.6g slot-s, reduce work %.6g slot-s, largest job %.6g slot-s\n", s.MapWork, s.ReduceWork, s.LargestWork)
			return err
		},
	}
	conv.register(cmd.Flags())
	return cmd
}

func newSimulateRunCmd() *cobra.Command {
	var conv convFlags
	var n, mapSlots, reduceSlots int
	var epoch, minShare float64
	var policies []string
	var metric string
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Closed-loop simulation of a SWIM trace under each policy",
		Long: "Replay the first --jobs jobs of a SWIM trace on a cluster of --map-slots and\n" +
			"--reduce-slots, re-dividing the slots with each policy every --epoch seconds\n" +
			"and at every phase completion (true remaining work; reduce after map), and\n" +
			"report realised mean response time, mean and max stretch and makespan.",
		Example: "  flexd simulate run sim/testdata/swim/FB-2009_samples_24_times_1hr_0.tsv --jobs 200",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if n < 1 || mapSlots < 1 || reduceSlots < 1 || !(epoch > 0) || !(minShare >= 0 && minShare <= 1) {
				return usageError{errors.New("--jobs, --map-slots and --reduce-slots must be >= 1, --epoch > 0, --min-share in [0, 1]")}
			}
			info, ok := penalty.Lookup(penalty.Metric(metric))
			if !ok || info.NeedsDeadline || info.NeedsSLA {
				return usageError{fmt.Errorf("--metric %q: want a metric without deadlines or SLAs (traces carry none)", metric)}
			}
			tjobs, err := conv.readTrace(args[0])
			if err != nil {
				return err
			}
			tjobs = tjobs[:min(n, len(tjobs))]
			jobs := make([]cluster.Job, len(tjobs))
			for i, j := range tjobs {
				jobs[i] = cluster.Job{ID: fmt.Sprintf("%s@%d", j.Name, j.Line), Arrival: j.Submit, MapWork: j.MapWork,
					ReduceWork: j.ReduceWork, MapTasks: j.MapTasks, ReduceTasks: j.ReduceTasks, Weight: 1}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "%d jobs, %d map + %d reduce slots, epoch %g s, metric %s, min share %g\nconstants: %s\n",
				len(jobs), mapSlots, reduceSlots, epoch, metric, minShare, conv)
			tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "policy\tmean response (s)\tmean stretch\tmax stretch\tmakespan (s)\tdecisions")
			for _, pol := range policies {
				if _, ok := solver.ByName(pol); !ok || pol == "" {
					return usageError{fmt.Errorf("--policies: unknown policy %q", pol)}
				}
				rep, err := cluster.Run(cluster.Config{MapSlots: mapSlots, ReduceSlots: reduceSlots, Epoch: epoch,
					Policy: pol, Metric: penalty.Metric(metric), MinShare: minShare}, jobs)
				if err != nil {
					return err
				}
				fmt.Fprintf(tw, "%s\t%.1f\t%.3f\t%.3f\t%.1f\t%d\n", pol, rep.MeanResponse, rep.MeanStretch, rep.MaxStretch, rep.Makespan, rep.Decisions)
			}
			return tw.Flush()
		},
	}
	fl := cmd.Flags()
	conv.register(fl)
	fl.IntVar(&n, "jobs", 200, "simulate the first N jobs of the trace")
	fl.IntVar(&mapSlots, "map-slots", 100, "map slots")
	fl.IntVar(&reduceSlots, "reduce-slots", 50, "reduce slots")
	fl.Float64Var(&epoch, "epoch", 10, "seconds between scheduled decisions")
	fl.Float64Var(&minShare, "min-share", 0.25, "share of each phase's slots guaranteed as minima, split evenly among its jobs")
	fl.StringSliceVar(&policies, "policies", sim.DefaultPolicies(), "comma-separated policies")
	fl.StringVar(&metric, "metric", string(penalty.AvgResponseTime), "the policies' objective")
	return cmd
}
