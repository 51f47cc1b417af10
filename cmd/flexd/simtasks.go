package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/flexd/flexd/sim/tasksim"
)

// taskFlags are `flexd simulate tasks`'s flags.
type taskFlags struct {
	scenario  string
	detectors []string
	seed      uint64
	seeds     int
	format    string
	log       string
	plot      string
	basis     string
	classify  string
	straggler float64
}

// sepbOptions is the sepb scenario's variation from the flags.
func (f taskFlags) sepbOptions(detector string) tasksim.SEPBOptions {
	return tasksim.SEPBOptions{Detector: detector, StragglerFactor: f.straggler}
}

func newSimulateTasksCmd() *cobra.Command {
	var f taskFlags
	cmd := &cobra.Command{
		Use:   "tasks",
		Short: "Task-level simulation: straggler detectors side by side (ESAMR, ESPLASH)",
		Long: "Simulate a cluster task by task (sim/tasksim): nodes with slots, speeds, slowdowns\n" +
			"and outages; attempts that advance through Hadoop's stages; a shim that fills free\n" +
			"slots in fair-share order against flexd's allocations, and launches the backups\n" +
			"flexd's speculation advice names (the first attempt to finish wins). flexd is\n" +
			"called every 3 s through epoch.Decide with the request a shim would send.\n\n" +
			"--scenario esamr: ESAMR's testbed (5 workers; a warm-up history of 12 jobs, then\n" +
			"WordCount and Sort 10 GB with injected stragglers): each detector's TimeToEnd and\n" +
			"stage-weight errors, and which tasks it flags (measured without backups, so every\n" +
			"detector watches the same run), and the response times with backups.\n" +
			"--scenario esplash: 8 nodes in 4 levels, 8 mixed jobs: no straggler, a node slowed\n" +
			"(level 1, level 4), a node slowed then down; makespan, increased makespan and\n" +
			"the backups each detector launched, averaged over --seeds seeds.\n" +
			"--scenario preschedule: DynamicMR's Slot PreScheduling with HDFS replicas, the\n" +
			"load-balancing cap and delay scheduling: Sort of 16, 32 and 160 maps, J1-J10.\n" +
			"--scenario sepb: DynamicMR's SEPB over LATE on 9 slaves, 5, 10 and 20 PUMA jobs,\n" +
			"jobs_checked swept from off to 1, averaged over --seeds seeds.\n" +
			"--scenario flex42: FLEX 4.2's cluster workload at task level, FLEX told the true\n" +
			"work against FLEX on flexd's extrapolation (and FAIR), over slack and task-time CV.\n" +
			"docs/speculation.md has the figures and what they show.",
		Example: "  flexd simulate tasks --scenario esamr\n" +
			"  flexd simulate tasks --scenario esplash --seeds 5\n" +
			"  flexd simulate tasks --scenario esplash --detectors none,esplash --log /tmp/epochs.jsonl",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runTasks(cmd, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.scenario, "scenario", tasksim.ScenarioESPLASH, "scenario: "+strings.Join(tasksim.Scenarios(), "|"))
	fl.StringSliceVar(&f.detectors, "detectors", nil, "comma-separated detectors: none|late|yarn_default|esamr|esplash (default: esamr: late,esamr; esplash: none,yarn_default,esplash; sepb: the one SEPB wraps, late)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed of the task times (the first, with --seeds)")
	fl.IntVar(&f.seeds, "seeds", 1, "esplash, sepb, preschedule: average over this many seeds from --seed")
	fl.StringVar(&f.format, "format", "table", "output format: "+strings.Join(tasksim.Formats(), "|"))
	fl.StringVar(&f.classify, "levels", "configured", "esplash: the nodes' levels sent as configured, or dynamic (flexd classifies them)")
	fl.StringVar(&f.basis, "esamr-basis", "", "esamr: what late and esamr compare a slow attempt on, execution_time (default) or time_to_end (Algorithm 4 as printed)")
	fl.StringVar(&f.log, "log", "", "write one run's epoch requests to FILE as epochs.jsonl, replayable with flexd replay (the first detector's; esamr: with backups; esplash: scenario slow_level1; flex42: extrapolate, slack 0.75, CV 0.3; sepb: 10 jobs at 0.8; preschedule: Sort of 32 maps)")
	fl.StringVar(&f.plot, "plot", "", "draw that run's attempts per node over time (backups marked) to FILE.png or FILE.svg")
	fl.Float64Var(&f.straggler, "straggler-factor", 3, "sepb: how many times slower the straggling 5% of the tasks run, 1 to 100 (section 5.5: 3)")
	return cmd
}

func runTasks(cmd *cobra.Command, f taskFlags) error {
	if !slices.Contains(tasksim.Scenarios(), f.scenario) {
		return usageError{fmt.Errorf("--scenario %q: want one of %s", f.scenario, strings.Join(tasksim.Scenarios(), ", "))}
	}
	if !slices.Contains(tasksim.Formats(), f.format) {
		return usageError{fmt.Errorf("--format %q: want one of %s", f.format, strings.Join(tasksim.Formats(), ", "))}
	}
	if f.classify != "configured" && f.classify != "dynamic" {
		return usageError{fmt.Errorf("--levels %q: want configured or dynamic", f.classify)}
	}
	switch f.basis {
	case "", "execution_time", "time_to_end":
	default:
		return usageError{fmt.Errorf("--esamr-basis %q: want execution_time or time_to_end", f.basis)}
	}
	if !(f.straggler >= 1 && f.straggler <= 100) {
		return usageError{fmt.Errorf("--straggler-factor %v: want 1 to 100", f.straggler)}
	}
	if f.seeds < 1 || f.seeds > 100 {
		return usageError{fmt.Errorf("--seeds %d: want 1 to 100", f.seeds)}
	}
	dets := f.detectors
	if len(dets) == 0 {
		dets = tasksim.DefaultDetectors(f.scenario)
	}
	if err := tasksim.CheckDetectors(dets); err != nil {
		return usageError{fmt.Errorf("--detectors: %w", err)}
	}
	if f.scenario == tasksim.ScenarioSEPB && (len(dets) != 1 || dets[0] == "none") {
		return usageError{fmt.Errorf("--detectors: sepb wraps one detector (late, yarn_default, esamr or esplash), got %q", strings.Join(dets, ","))}
	}
	if f.plot != "" {
		if err := checkPlotPath(f.plot); err != nil {
			return usageError{fmt.Errorf("--plot: %w", err)}
		}
	}
	// The first run again, for its log and its picture: the comparisons
	// keep no run whole.
	var first tasksim.Config
	title := ""
	switch f.scenario {
	case tasksim.ScenarioPreschedule:
		var err error
		if first, err = tasksim.PrescheduleConfig("sort-32", true, f.seed); err != nil {
			return err
		}
		title = fmt.Sprintf("Slot PreScheduling scenario, Sort with 32 maps, seed %d", f.seed)
	case tasksim.ScenarioSEPB:
		var err error
		if first, err = tasksim.SEPBConfig(10, 0.8, f.seed, f.sepbOptions(dets[0])); err != nil {
			return err
		}
		title = fmt.Sprintf("SEPB scenario, 10 jobs, %s with SEPB at jobs_checked 0.8, seed %d", dets[0], f.seed)
	case tasksim.ScenarioFLEX42:
		var err error
		if first, err = tasksim.FLEX42Config("flex", false, 0.75, 1, 0.3, f.seed); err != nil {
			return err
		}
		title = fmt.Sprintf("FLEX 4.2 workload, flex on extrapolated work, slack 0.75, CV 0.3, seed %d", f.seed)
	case tasksim.ScenarioESAMR:
		first = tasksim.ESAMRConfig(dets[0], true, f.seed, f.basis)
		title = fmt.Sprintf("ESAMR scenario, detector %s, seed %d", dets[0], f.seed)
	default:
		// The first run with a straggler: the picture worth drawing.
		sc := tasksim.ESPLASHScenarios()[1]
		var err error
		if first, err = tasksim.ESPLASHConfig(sc, dets[0], f.seed); err != nil {
			return err
		}
		title = fmt.Sprintf("ESPLASH scenario %s, detector %s, seed %d", sc, dets[0], f.seed)
	}
	if f.log != "" || f.plot != "" {
		first.Log, first.Timeline = f.log != "", f.plot != ""
		rep, err := tasksim.Run(first)
		if err != nil {
			return err
		}
		if f.log != "" {
			if err := writeEpochLog(f.log, rep); err != nil {
				return err
			}
		}
		if f.plot != "" {
			if err := plotTasks(f.plot, rep, first, title); err != nil {
				return err
			}
		}
	}
	out := cmd.OutOrStdout()
	if f.scenario == tasksim.ScenarioPreschedule {
		seeds := make([]uint64, f.seeds)
		for i := range seeds {
			seeds[i] = f.seed + uint64(i)
		}
		rows, err := tasksim.ComparePreschedule(seeds)
		if err != nil {
			return err
		}
		return tasksim.WritePreschedule(out, f.format, rows)
	}
	if f.scenario == tasksim.ScenarioSEPB {
		seeds := make([]uint64, f.seeds)
		for i := range seeds {
			seeds[i] = f.seed + uint64(i)
		}
		rows, err := tasksim.CompareSEPB(f.sepbOptions(dets[0]), []int{5, 10, 20}, []float64{-1, 0, 0.2, 0.4, 0.6, 0.8, 1}, seeds)
		if err != nil {
			return err
		}
		return tasksim.WriteSEPB(out, f.format, rows)
	}
	if f.scenario == tasksim.ScenarioFLEX42 {
		rows, err := tasksim.CompareFLEX42(f.seed, []float64{0.15, 0.35, 0.55, 0.75, 0.95}, []float64{0, 0.3, 1})
		if err != nil {
			return err
		}
		return tasksim.WriteFLEX42(out, f.format, rows)
	}
	if f.scenario == tasksim.ScenarioESAMR {
		rows, err := tasksim.CompareESAMR(f.seed, dets, f.basis)
		if err != nil {
			return err
		}
		return tasksim.WriteESAMR(out, f.format, rows)
	}
	seeds := make([]uint64, f.seeds)
	for i := range seeds {
		seeds[i] = f.seed + uint64(i)
	}
	rows, err := tasksim.CompareESPLASH(seeds, dets, f.classify == "dynamic")
	if err != nil {
		return err
	}
	return tasksim.WriteESPLASH(out, f.format, rows)
}

// writeEpochLog writes a run's requests as JSON Lines, the form of the
// server's epochs.jsonl export.
func writeEpochLog(path string, rep tasksim.Report) error {
	fh, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--log: %w", err)
	}
	w := bufio.NewWriter(fh)
	enc := json.NewEncoder(w)
	for i := range rep.Requests {
		if err := enc.Encode(&rep.Requests[i]); err != nil {
			fh.Close()
			return fmt.Errorf("--log %s: %w", path, err)
		}
	}
	if err := w.Flush(); err != nil {
		fh.Close()
		return fmt.Errorf("--log %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return fmt.Errorf("--log %s: %w", path, err)
	}
	return nil
}
