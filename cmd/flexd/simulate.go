package main

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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
			"`trace` converts a SWIM workload trace into jobs and summarises it, and `run`\n" +
			"runs policies and ratio modes side by side on a closed-loop cluster.",
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newSimulateStudyCmd(), newSimulateTraceCmd(), newSimulateRunCmd(), newSimulateTasksCmd())
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
	plot                   string
	reference, refCache    string
	refEffort, effort      int
	searchSeeds            int
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
			if !cmd.Flags().Changed("slots") {
				f.slots = 10 * f.jobs
			}
			return runStudy(cmd, f)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&f.jobs, "jobs", def.Jobs, "jobs per instance, J (OPT is exhaustive: at most 10; past that --reference search)")
	fl.StringVar(&f.reference, "reference", "opt", "what ratios divide by: opt (exhaustive, J <= 10) or search (best known order from a long iterated local search, any J)")
	fl.IntVar(&f.refEffort, "reference-effort", 10, fmt.Sprintf("with --reference search: %d MPS evaluations per instance and metric per unit", sim.ReferenceEvaluationsPerEffort))
	fl.IntVar(&f.effort, "effort", 1, fmt.Sprintf("search effort of the policies compared (not of the reference): 0 fastest, 1 default, n times the default search, up to %d", solver.MaxEffort))
	fl.IntVar(&f.searchSeeds, "search-seeds", 1, fmt.Sprintf("solve each instance with this many seeds of FLEX's random kicks (0 to n-1) and take the mean: a ratio less owed to one seed's luck (1 to %d)", sim.MaxSearchSeeds))
	fl.StringVar(&f.refCache, "reference-cache", defaultReferenceCache(), "with --reference search: directory caching references by workload, seed and effort (empty: no cache)")
	fl.IntVar(&f.slots, "slots", 0, "slots, S (default: 10 per job, the paper's base case)")
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
	fl.StringVar(&f.plot, "plot", "", "also draw the ratio chart (Fig. 5a/5b with --sweep, Fig. 5c without) to FILE.png or FILE.svg")
	return cmd
}

func runStudy(cmd *cobra.Command, f studyFlags) error {
	if !slices.Contains(sim.Formats(), f.format) {
		return usageError{fmt.Errorf("--format %q: want one of %s", f.format, strings.Join(sim.Formats(), ", "))}
	}
	switch f.reference {
	case "opt":
		if f.jobs > sim.MaxOptJobs {
			return usageError{fmt.Errorf("--jobs %d: OPT is an exhaustive search over J! orders and takes at most %d jobs; use --reference search", f.jobs, sim.MaxOptJobs)}
		}
	case "search":
		if f.refEffort < 1 {
			return usageError{fmt.Errorf("--reference-effort %d: want at least 1", f.refEffort)}
		}
		if f.sweep != "" {
			return usageError{errors.New("--reference search does not combine with --sweep yet: run one study per value")}
		}
	default:
		return usageError{fmt.Errorf("--reference %q: want opt or search", f.reference)}
	}
	if f.instances < 1 {
		return usageError{fmt.Errorf("--instances %d: want at least 1", f.instances)}
	}
	effort, err := solver.EffortOption(&f.effort)
	if err != nil {
		return usageError{fmt.Errorf("--effort: %w", err)}
	}
	if f.searchSeeds < 1 || f.searchSeeds > sim.MaxSearchSeeds {
		return usageError{fmt.Errorf("--search-seeds %d: want 1 to %d", f.searchSeeds, sim.MaxSearchSeeds)}
	}
	if f.sweep != "" && f.sweep != "slack" && f.sweep != "small" {
		return usageError{fmt.Errorf("--sweep %q: want slack or small", f.sweep)}
	}
	if f.sweep == "" && len(f.values) > 0 {
		return usageError{errors.New("--values needs --sweep")}
	}
	if f.plot != "" {
		if err := checkPlotPath(f.plot); err != nil {
			return usageError{fmt.Errorf("--plot: %w", err)}
		}
	}
	cfg := sim.StudyConfig{
		Workload:    sim.Workload{Jobs: f.jobs, Slots: f.slots, Small: f.small, Slack: f.slack},
		Instances:   f.instances,
		Policies:    f.policies,
		Effort:      effort,
		SearchSeeds: f.searchSeeds,
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
	var refs *sim.ReferenceSet
	refPath := ""
	if f.reference == "search" {
		if f.refCache != "" {
			refPath = filepath.Join(f.refCache, sim.ReferenceFile(cfg.Workload, f.seed, f.refEffort))
		}
		if refs, err = sim.LoadReferenceSet(refPath, cfg.Workload, f.seed, f.refEffort); err != nil {
			return err
		}
		cfg.Indexed = sim.SearchOracle(refs)
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
	if f.sweep == "" {
		rows, err = sim.RunStudy(cfg, f.seed)
	} else {
		rows, err = sim.RunSweep(cfg, f.seed, f.sweep, values)
	}
	bar.finish()
	if refs != nil && refPath != "" {
		// Kept even when the study failed: what was found is still right.
		if serr := refs.Save(refPath); serr != nil {
			err = errors.Join(err, serr)
		}
	}
	if err != nil {
		return err
	}
	if err := sim.WriteRows(cmd.OutOrStdout(), f.format, rows); err != nil {
		return err
	}
	if f.plot != "" {
		if err := plotStudy(f.plot, rows); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
	}
	return nil
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

// conversion is the flags' constants in bytes.
func (c convFlags) conversion() swim.Conversion {
	return swim.Conversion{
		BlockBytes: c.blockMB * swim.MiB, MapRate: c.mapMBps * swim.MiB, ReduceRate: c.reduceMBps * swim.MiB,
		ReduceBytes: c.reduceMB * swim.MiB, MinTaskWork: c.minTask,
	}
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
	var r io.Reader = bytes.NewReader(sim.SWIMSample)
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, usageError{fmt.Errorf("the trace: %w", err)}
		}
		defer f.Close()
		r = f
	} else {
		path = "embedded " + sim.SWIMSampleName
	}
	jobs, err := swim.Read(r, c.conversion())
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

// runFlags are the flags of `flexd simulate run`.
type runFlags struct {
	conv                               convFlags
	workload, trace, metric, format    string
	jobs, mapSlots, reduceSlots, pools int
	index, staticStep, poolStaticStep  int
	epoch, minShare, bandwidthMB       float64
	compress, lambda, mapHeavy, unit   float64
	reduceShare, sigma, taskCV         float64
	estimates                          []string
	minOne                             string
	onceSampled                        bool
	policies, ratios, omos             []string
	slowstarts                         []float64
	seed                               uint64
	quiet, perJob, onBestSplit         bool
	bandwidthSet                       bool
	plot                               string
}

// The workloads `simulate run` knows.
var runWorkloads = []string{"swim", "flex41", "flex42", "table44", "mixed"}

func newSimulateRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run [TRACE]",
		Short: "Closed-loop simulation: policies, ratio modes and OMO side by side",
		Long: "Simulate a MapReduce cluster in continuous time, deciding every --epoch seconds\n" +
			"and at every phase completion with epoch.Decide, exactly as the server does:\n" +
			"the policy (flex, fair, fifo), the ratio mode (static, pi_dhsa, pd_dhsa, fresh)\n" +
			"and OMO (lazy start, batch finish) on the true remaining work. A reduce phase\n" +
			"is offered once --slowstart of its maps are done (Hadoop's baseline), or from\n" +
			"the start under OMO's lazy start; its work includes receiving the map output\n" +
			"at --bandwidth-mbps per reduce task, never faster than the maps produce it.\n" +
			"Every combination of --policies, --ratio, --omo and --slowstart runs (on all\n" +
			"cores, deterministically); OMO is skipped on the static split and slowstart\n" +
			"under lazy start. --static-sweep N adds, per policy and slowstart, the best\n" +
			"static split of the same total slots in steps of N map slots;\n" +
			"--pool-static-sweep N the best pool-fair static split (pd_dhsa with both\n" +
			"borrowing percentages 0: the jobs' pools share each phase's fixed slots\n" +
			"max-min fairly, DynamicMR's baseline for PD-DHSA). --on-best-split also runs\n" +
			"pi_dhsa (pd_dhsa) of --ratio on the configured slots of the best static\n" +
			"(pool-fair static) split, per policy and slowstart: DynamicMR's comparison\n" +
			"under the optimized slot configuration, where only what DHSA lends differs.\n\n" +
			"Workloads: swim (the SWIM trace, TRACE or --trace, first --jobs jobs, submit\n" +
			"times divided by --compress), flex41 (FLEX 4.1 instance --index with Poisson\n" +
			"arrivals of mean --lambda s, one generator unit = --unit s), flex42 (FLEX 4.2's\n" +
			"cluster set: --jobs (10) of N(10, --sigma^2) units of 20 tasks per phase, Poisson\n" +
			"arrivals of mean --lambda s; minima from --min-share), table44 (the\n" +
			"dissertation's 8 Terasort jobs, 80 map and 2 reduce tasks, 20 GiB shuffle each,\n" +
			"2 s apart) and mixed (map-heavy and reduce-heavy jobs, --map-heavy share,\n" +
			"Poisson arrivals of mean --lambda s).\n\n" +
			"--estimate extrapolate (or extrapolate_elapsed) tells the policies only what a\n" +
			"shim knows, task counts and the mean duration of the completed tasks (drawn\n" +
			"lognormally with CV --task-cv), and has flexd estimate the work (FLEX 4.2).",
		Example: "  flexd simulate run --workload swim --jobs 300 --compress 20 --map-slots 60 --reduce-slots 30\n" +
			"  flexd simulate run --workload table44 --map-slots 40 --reduce-slots 40 --ratio static,fresh --omo none,lazy+batch --slowstart 0.05,1\n" +
			"  flexd simulate run --workload mixed --map-heavy 0.8 --ratio static,pi_dhsa,pd_dhsa --static-sweep 4 --format csv",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				f.trace = args[0]
			}
			f.bandwidthSet = cmd.Flags().Changed("bandwidth-mbps")
			return runRun(cmd, f)
		},
	}
	fl := cmd.Flags()
	f.conv.register(fl)
	fl.StringVar(&f.workload, "workload", "swim", "workload: "+strings.Join(runWorkloads, "|"))
	fl.StringVar(&f.trace, "trace", "", "SWIM trace (workload swim); empty: the SWIM FB-2009 sample embedded in the binary ("+sim.SWIMSampleName+")")
	fl.IntVar(&f.jobs, "jobs", 0, "jobs (default: swim 200, flex41 the instance's 10, table44 8, mixed 20)")
	fl.Float64Var(&f.compress, "compress", 1, "swim: divide submit times by this factor so jobs overlap")
	fl.Float64Var(&f.lambda, "lambda", 30, "flex41, mixed: mean Poisson inter-arrival time, seconds (0: all at once)")
	fl.Float64Var(&f.mapHeavy, "map-heavy", 0.5, "mixed: share of map-heavy jobs, in [0, 1]")
	fl.IntVar(&f.pools, "pools", 2, "mixed: jobs go round-robin into this many PD-DHSA pools")
	fl.IntVar(&f.index, "index", 0, "flex41: instance index of the seed's study")
	fl.Float64Var(&f.unit, "unit", 60, "flex41: seconds per generator time unit")
	fl.Float64Var(&f.reduceShare, "reduce-share", 0.3, "flex41: share of each job's work in its reduce phase")
	fl.Float64Var(&f.sigma, "sigma", 1, "flex42: spread of the job sizes, N(10, sigma^2) units of 20 tasks")
	fl.StringSliceVar(&f.estimates, "estimate", []string{cluster.Oracle}, "comma-separated: what the policy is told of remaining work: oracle (the true work), extrapolate or extrapolate_elapsed (task counts and the mean of completed tasks only; flexd estimates, FLEX 4.2)")
	fl.StringVar(&f.minOne, "estimate-min-one", "no_sample", "with an estimate: when an estimated phase's minimum is raised to one slot: no_sample|always|runnable|never")
	fl.BoolVar(&f.onceSampled, "estimate-once-sampled", false, "with an estimate: tell the policy a phase's true work until one of its tasks has completed (the estimate measured once a sample exists)")
	fl.Float64Var(&f.taskCV, "task-cv", 0, "with an estimate: coefficient of variation of the task durations (lognormal around each phase's mean)")
	fl.IntVar(&f.mapSlots, "map-slots", 40, "configured map slots")
	fl.IntVar(&f.reduceSlots, "reduce-slots", 40, "configured reduce slots")
	fl.Float64Var(&f.epoch, "epoch", 10, "seconds between scheduled decisions, T")
	fl.Float64Var(&f.minShare, "min-share", 0, "share of each phase's slots guaranteed as minima, split evenly among its jobs")
	fl.StringSliceVar(&f.policies, "policies", sim.DefaultPolicies(), "comma-separated policies, side by side")
	fl.StringSliceVar(&f.ratios, "ratio", []string{"static"}, "comma-separated ratio modes: static|pi_dhsa|pd_dhsa|fresh")
	fl.StringSliceVar(&f.omos, "omo", []string{"none"}, "comma-separated OMO settings: none|lazy|batch|lazy+batch")
	fl.Float64SliceVar(&f.slowstarts, "slowstart", []float64{0.05}, "comma-separated shares of maps done before reduce starts (Hadoop default 0.05)")
	fl.Float64Var(&f.bandwidthMB, "bandwidth-mbps", 50, "shuffle bandwidth per reduce task, MiB/s (swim default: --reduce-mbps, which the conversion's reduce work assumes)")
	fl.IntVar(&f.staticStep, "static-sweep", 0, "add the best static split per policy and slowstart, trying every N-th map slot count (0: off)")
	fl.IntVar(&f.poolStaticStep, "pool-static-sweep", 0, "add the best pool-fair static split per policy and slowstart (pd_dhsa with borrowing off: PD-DHSA's own baseline), trying every N-th map slot count (0: off)")
	fl.BoolVar(&f.onBestSplit, "on-best-split", false, "also run pi_dhsa on the best static split's slots (needs --static-sweep) and pd_dhsa on the best pool-fair static split's (needs --pool-static-sweep)")
	fl.StringVar(&f.metric, "metric", string(penalty.AvgResponseTime), "the policies' objective")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed of the generated workloads")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(sim.Formats(), "|"))
	fl.BoolVar(&f.perJob, "per-job", false, "also print every job's outcome per run")
	fl.StringVar(&f.plot, "plot", "", "also draw the first run's slots per job over time (FLEX Fig. 4's picture) to FILE.png or FILE.svg")
	fl.BoolVar(&f.quiet, "quiet", false, "no progress bar on stderr")
	return cmd
}

// runJobs builds the workload's jobs and says how, for the header.
func runJobs(f runFlags) ([]cluster.Job, string, error) {
	switch f.workload {
	case "swim":
		tjobs, err := f.conv.readTrace(f.trace)
		if err != nil {
			return nil, "", err
		}
		n := cmp.Or(f.jobs, 200)
		if !(f.compress > 0) {
			return nil, "", usageError{fmt.Errorf("--compress %v: want a positive factor", f.compress)}
		}
		jobs := cluster.FromSWIM(tjobs, f.conv.conversion(), n, f.compress)
		name := f.trace
		if name == "" {
			name = sim.SWIMSampleName + " (embedded)"
		}
		return jobs, fmt.Sprintf("swim %s: first %d jobs, submit times / %g; constants: %s", name, len(jobs), f.compress, f.conv), nil
	case "flex41":
		w := sim.DefaultWorkload()
		w.Jobs = cmp.Or(f.jobs, w.Jobs)
		w.Slots = f.mapSlots + f.reduceSlots
		jobs, err := cluster.GenerateFLEX41(cluster.FLEX41{Workload: w, Index: f.index, Unit: f.unit, Lambda: f.lambda, ReduceShare: f.reduceShare}, f.seed)
		if err != nil {
			return nil, "", usageError{err}
		}
		return jobs, fmt.Sprintf("flex41: instance %d of seed %d, %d jobs on S=%d, unit %g s, lambda %g s, reduce share %g",
			f.index, f.seed, len(jobs), w.Slots, f.unit, f.lambda, f.reduceShare), nil
	case "flex42":
		jobs, err := cluster.GenerateFLEX42(cluster.FLEX42{Jobs: f.jobs, Sigma: f.sigma, Lambda: f.lambda}, f.seed)
		if err != nil {
			return nil, "", usageError{err}
		}
		return jobs, fmt.Sprintf("flex42: %d jobs, sizes N(10, %g^2) units of 20 tasks (map 30 s, reduce 60 s a task), lambda %g s, seed %d",
			len(jobs), f.sigma, f.lambda, f.seed), nil
	case "table44":
		jobs := cluster.GenerateTable44(cluster.Table44{Jobs: f.jobs})
		return jobs, fmt.Sprintf("table44: %d Terasort jobs 2 s apart, 80 map tasks of 30 s, 2 reduce tasks of 60 s after a 20 GiB shuffle each", len(jobs)), nil
	case "mixed":
		jobs, err := cluster.GenerateMixed(cluster.Mixed{Jobs: f.jobs, MapHeavy: f.mapHeavy, Lambda: f.lambda, Pools: f.pools}, f.seed)
		if err != nil {
			return nil, "", usageError{err}
		}
		return jobs, fmt.Sprintf("mixed: %d jobs, map-heavy share %g, lambda %g s, %d pools, seed %d", len(jobs), f.mapHeavy, f.lambda, f.pools, f.seed), nil
	}
	return nil, "", usageError{fmt.Errorf("--workload %q: want one of %s", f.workload, strings.Join(runWorkloads, ", "))}
}

// omoSetting parses one --omo value.
func omoSetting(s string) (cluster.OMOConfig, error) {
	switch s {
	case "none", "":
		return cluster.OMOConfig{}, nil
	case "lazy":
		return cluster.OMOConfig{LazyStart: true}, nil
	case "batch":
		return cluster.OMOConfig{BatchFinish: true}, nil
	case "lazy+batch", "batch+lazy", "omo":
		return cluster.OMOConfig{LazyStart: true, BatchFinish: true}, nil
	}
	return cluster.OMOConfig{}, usageError{fmt.Errorf("--omo %q: want none, lazy, batch or lazy+batch", s)}
}

func omoName(o cluster.OMOConfig) string {
	switch {
	case o.LazyStart && o.BatchFinish:
		return "lazy+batch"
	case o.LazyStart:
		return "lazy"
	case o.BatchFinish:
		return "batch"
	}
	return "none"
}

// runVariants is the cross product of the flags, without the combinations
// that mean nothing (OMO on a static split; slowstart under lazy start).
func runVariants(f runFlags, bandwidth float64) ([]cluster.Variant, error) {
	var out []cluster.Variant
	for _, est := range f.estimates {
		switch est {
		case cluster.Oracle, cluster.EstimateExtrapolate, cluster.EstimateExtrapolateElapsed:
		default:
			return nil, usageError{fmt.Errorf("--estimate %q: want oracle, extrapolate or extrapolate_elapsed", est)}
		}
	}
	if !slices.Contains([]string{"no_sample", "always", "never", "runnable"}, f.minOne) {
		return nil, usageError{fmt.Errorf("--estimate-min-one %q: want no_sample, always, never or runnable", f.minOne)}
	}
	if !(f.taskCV >= 0) || math.IsInf(f.taskCV, 0) {
		return nil, usageError{fmt.Errorf("--task-cv %v: want a finite number >= 0", f.taskCV)}
	}
	for _, pol := range f.policies {
		if _, ok := solver.ByName(pol); !ok || pol == "" {
			return nil, usageError{fmt.Errorf("--policies: unknown policy %q", pol)}
		}
		for _, mode := range f.ratios {
			if !slices.Contains([]string{"static", "pi_dhsa", "pd_dhsa", "fresh"}, mode) {
				return nil, usageError{fmt.Errorf("--ratio %q: want static, pi_dhsa, pd_dhsa or fresh", mode)}
			}
			for _, os := range f.omos {
				o, err := omoSetting(os)
				if err != nil {
					return nil, err
				}
				if (o.LazyStart || o.BatchFinish) && mode == "static" {
					continue
				}
				for x, ss := range f.slowstarts {
					if !(ss >= 0 && ss <= 1) {
						return nil, usageError{fmt.Errorf("--slowstart %v: want a share in [0, 1]", ss)}
					}
					if o.LazyStart && x > 0 {
						break
					}
					for _, est := range f.estimates {
						cfg := cluster.Config{MapSlots: f.mapSlots, ReduceSlots: f.reduceSlots, Epoch: f.epoch, Policy: pol,
							Metric: penalty.Metric(f.metric), MinShare: f.minShare, Ratio: mode, OMO: o, Bandwidth: bandwidth, SlowStart: ss,
							Estimate: est, TaskTimeCV: f.taskCV, EstimateSeed: f.seed, EstimateMinOne: f.minOne,
							EstimateOnceSampled: f.onceSampled}
						label := fmt.Sprintf("%s/%s/ss=%g", pol, mode, ss)
						if o.LazyStart {
							label = fmt.Sprintf("%s/%s/omo=%s", pol, mode, omoName(o))
						} else if o.BatchFinish {
							label += "/omo=batch"
						}
						if est != cluster.Oracle {
							label += "/est=" + est
						}
						out = append(out, cluster.Variant{Label: label, Config: cfg})
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, usageError{errors.New("no variant to run: OMO needs a ratio mode other than static")}
	}
	return out, nil
}

// runRow is one output row of `simulate run`.
type runRow struct {
	Label         string            `json:"label"`
	Policy        string            `json:"policy"`
	Ratio         string            `json:"ratio"`
	OMO           string            `json:"omo"`
	SlowStart     float64           `json:"slowstart"`
	MapSlots      int               `json:"map_slots"`
	ReduceSlots   int               `json:"reduce_slots"`
	MeanResponse  float64           `json:"mean_response"`
	Makespan      float64           `json:"makespan"`
	MeanStretch   float64           `json:"mean_stretch"`
	MaxStretch    float64           `json:"max_stretch"`
	TardyJobs     *int              `json:"tardy_jobs,omitempty"`
	Tardiness     *float64          `json:"total_tardiness,omitempty"`
	SLACost       *float64          `json:"sla_cost,omitempty"`
	Fairness      float64           `json:"fairness"`
	EpochFairness float64           `json:"epoch_fairness"`
	IdleReduce    float64           `json:"idle_reduce_slot_seconds"`
	Decisions     int               `json:"decisions"`
	Jobs          []cluster.Outcome `json:"jobs,omitempty"`
}

func rowOf(r cluster.Result, perJob bool) runRow {
	c, rep := r.Variant.Config, r.Report
	row := runRow{Label: r.Variant.Label, Policy: c.Policy, Ratio: c.Ratio, OMO: omoName(c.OMO), SlowStart: c.SlowStart,
		MapSlots: c.MapSlots, ReduceSlots: c.ReduceSlots, MeanResponse: rep.MeanResponse, Makespan: rep.Makespan,
		MeanStretch: rep.MeanStretch, MaxStretch: rep.MaxStretch, Fairness: rep.Fairness, EpochFairness: rep.EpochFairness,
		IdleReduce: rep.IdleReduceSlotSeconds, Decisions: rep.Decisions}
	if c.OMO.LazyStart {
		row.SlowStart = math.NaN()
	}
	if rep.Deadlines {
		row.TardyJobs, row.Tardiness, row.SLACost = &rep.TardyJobs, &rep.TotalTardiness, &rep.SLACost
	}
	if perJob {
		row.Jobs = rep.Jobs
	}
	return row
}

func runRun(cmd *cobra.Command, f runFlags) error {
	if !slices.Contains(sim.Formats(), f.format) {
		return usageError{fmt.Errorf("--format %q: want one of %s", f.format, strings.Join(sim.Formats(), ", "))}
	}
	if f.mapSlots < 1 || f.reduceSlots < 1 || !(f.epoch > 0) || !(f.minShare >= 0 && f.minShare <= 1) || f.jobs < 0 || f.staticStep < 0 || f.poolStaticStep < 0 {
		return usageError{errors.New("--map-slots and --reduce-slots must be >= 1, --epoch > 0, --min-share in [0, 1], --jobs, --static-sweep and --pool-static-sweep >= 0")}
	}
	if _, ok := penalty.Lookup(penalty.Metric(f.metric)); !ok {
		return usageError{fmt.Errorf("--metric: unknown metric %q", f.metric)}
	}
	if f.plot != "" {
		if err := checkPlotPath(f.plot); err != nil {
			return usageError{fmt.Errorf("--plot: %w", err)}
		}
	}
	jobs, desc, err := runJobs(f)
	if err != nil {
		return err
	}
	bandwidth := f.bandwidthMB * swim.MiB
	if f.workload == "swim" && !f.bandwidthSet {
		bandwidth = f.conv.reduceMBps * swim.MiB
	}
	if !(bandwidth >= 0) {
		return usageError{fmt.Errorf("--bandwidth-mbps %v: want >= 0", f.bandwidthMB)}
	}
	variants, err := runVariants(f, bandwidth)
	if err != nil {
		return err
	}
	nMain := len(variants)
	if f.plot != "" && nMain > 0 {
		variants[0].Config.Timeline = true // the chart shows the first run
	}
	type group struct {
		start, end int // [start, end) in variants
		ratio      string
		dhsa       string // the DHSA mode --on-best-split runs on the best split
	}
	var groups []group
	for _, sweep := range []struct {
		step        int
		ratio, dhsa string
		split       func(cluster.Config, int, string) []cluster.Variant
	}{{f.staticStep, "static-best", "pi_dhsa", cluster.StaticSplits}, {f.poolStaticStep, "pool-static-best", "pd_dhsa", cluster.PoolStaticSplits}} {
		if sweep.step <= 0 {
			continue
		}
		for _, pol := range f.policies {
			for _, ss := range f.slowstarts {
				base := cluster.Config{MapSlots: f.mapSlots, ReduceSlots: f.reduceSlots, Epoch: f.epoch, Policy: pol,
					Metric: penalty.Metric(f.metric), MinShare: f.minShare, Bandwidth: bandwidth, SlowStart: ss}
				vs := sweep.split(base, sweep.step, fmt.Sprintf("%s/%s/ss=%g/", pol, sweep.ratio, ss))
				dhsa := ""
				if f.onBestSplit && slices.Contains(f.ratios, sweep.dhsa) {
					dhsa = sweep.dhsa
				}
				groups = append(groups, group{len(variants), len(variants) + len(vs), sweep.ratio, dhsa})
				variants = append(variants, vs...)
			}
		}
	}
	if f.onBestSplit && !slices.ContainsFunc(groups, func(g group) bool { return g.dhsa != "" }) {
		return usageError{errors.New("--on-best-split needs pi_dhsa in --ratio with --static-sweep, or pd_dhsa with --pool-static-sweep")}
	}
	bar := newLazyBar(cmd.ErrOrStderr(), f.quiet, "jobs")
	results, err := cluster.RunAll(variants, jobs, 0, bar.set)
	bar.finish()
	if err != nil {
		return err
	}
	rows := make([]runRow, 0, nMain+2*len(groups))
	for _, r := range results[:nMain] {
		rows = append(rows, rowOf(r, f.perJob))
	}
	var onBest []cluster.Variant
	for _, g := range groups {
		best := cluster.Best(results[g.start:g.end])
		row := rowOf(best, f.perJob)
		row.Ratio = g.ratio
		rows = append(rows, row)
		if g.dhsa != "" {
			c := best.Variant.Config
			onBest = append(onBest, cluster.OnSplit(best, g.dhsa,
				fmt.Sprintf("%s/%s-on-%s/ss=%g/%d/%d", c.Policy, g.dhsa, g.ratio, c.SlowStart, c.MapSlots, c.ReduceSlots)))
		}
	}
	if len(onBest) > 0 {
		// A second round: each run needs its sweep's best split.
		bar := newLazyBar(cmd.ErrOrStderr(), f.quiet, "jobs")
		rs, err := cluster.RunAll(onBest, jobs, 0, bar.set)
		bar.finish()
		if err != nil {
			return err
		}
		for _, r := range rs {
			rows = append(rows, rowOf(r, f.perJob))
		}
	}
	out := cmd.OutOrStdout()
	if f.format == "table" {
		fmt.Fprintf(out, "%s\n%d map + %d reduce slots, epoch %g s, metric %s, min share %g, shuffle bandwidth %g MiB/s per reduce task\n",
			desc, f.mapSlots, f.reduceSlots, f.epoch, f.metric, f.minShare, bandwidth/swim.MiB)
	}
	if err := writeRunRows(out, f.format, rows, f.perJob); err != nil {
		return err
	}
	if f.plot != "" && len(results) > 0 {
		return plotRun(f.plot, results[0], jobs, f.mapSlots+f.reduceSlots)
	}
	return nil
}

func writeRunRows(w io.Writer, format string, rows []runRow, perJob bool) error {
	opt := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return strconv.FormatFloat(*p, 'f', 1, 64)
	}
	optInt := func(p *int) string {
		if p == nil {
			return "-"
		}
		return strconv.Itoa(*p)
	}
	switch format {
	case "json":
		for i := range rows {
			if math.IsNaN(rows[i].SlowStart) {
				rows[i].SlowStart = -1 // JSON has no NaN: -1 means lazy start decides
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "csv":
		cw := csv.NewWriter(w)
		head := []string{"label", "policy", "ratio", "omo", "slowstart", "map_slots", "reduce_slots", "mean_response", "makespan",
			"mean_stretch", "max_stretch", "tardy_jobs", "total_tardiness", "sla_cost", "fairness", "epoch_fairness",
			"idle_reduce_slot_seconds", "decisions"}
		if perJob {
			head = append(head, "job", "arrival", "map_done", "completion", "response", "stretch", "tardiness", "sla", "slot_seconds", "rate")
		}
		if err := cw.Write(head); err != nil {
			return err
		}
		g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		for _, r := range rows {
			ss := g(r.SlowStart)
			if math.IsNaN(r.SlowStart) {
				ss = ""
			}
			rec := []string{r.Label, r.Policy, r.Ratio, r.OMO, ss, strconv.Itoa(r.MapSlots), strconv.Itoa(r.ReduceSlots),
				g(r.MeanResponse), g(r.Makespan), g(r.MeanStretch), g(r.MaxStretch), strings.Trim(optInt(r.TardyJobs), "-"),
				strings.Trim(opt(r.Tardiness), "-"), strings.Trim(opt(r.SLACost), "-"), g(r.Fairness), g(r.EpochFairness),
				g(r.IdleReduce), strconv.Itoa(r.Decisions)}
			if !perJob {
				if err := cw.Write(rec); err != nil {
					return err
				}
				continue
			}
			for _, j := range r.Jobs {
				if err := cw.Write(append(slices.Clone(rec), j.ID, g(j.Arrival), g(j.MapDone), g(j.Completion), g(j.Response),
					g(j.Stretch), g(j.Tardiness), g(j.SLACost), g(j.SlotSeconds), g(j.Rate))); err != nil {
					return err
				}
			}
		}
		cw.Flush()
		return cw.Error()
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "run\tslots m/r\tmean response (s)\tmakespan (s)\tmean stretch\tmax stretch\ttardy\ttardiness (s)\tsla cost\tjain\tepoch jain\tidle reduce (slot-s)\tdecisions")
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d/%d\t%.1f\t%.1f\t%.3f\t%.3f\t%s\t%s\t%s\t%.3f\t%.3f\t%.0f\t%d\n", r.Label, r.MapSlots, r.ReduceSlots,
			r.MeanResponse, r.Makespan, r.MeanStretch, r.MaxStretch, optInt(r.TardyJobs), opt(r.Tardiness), opt(r.SLACost),
			r.Fairness, r.EpochFairness, r.IdleReduce, r.Decisions)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if !perJob {
		return nil
	}
	for _, r := range rows {
		fmt.Fprintf(w, "\n%s\n", r.Label)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "job\tarrival\tmap done\tcompletion\tresponse\tstretch\ttardiness\tsla\tslot-s\trate")
		for _, j := range r.Jobs {
			fmt.Fprintf(tw, "%s\t%.1f\t%.1f\t%.1f\t%.1f\t%.3f\t%.1f\t%.3f\t%.0f\t%.2f\n", j.ID, j.Arrival, j.MapDone, j.Completion,
				j.Response, j.Stretch, j.Tardiness, j.SLACost, j.SlotSeconds, j.Rate)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// defaultReferenceCache is where `simulate study --reference search` keeps
// its references: the user's cache directory, or none when there is none.
func defaultReferenceCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "flexd", "references")
}
