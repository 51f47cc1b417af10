package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/flexd/flexd/sim/cluster"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/chart"
	"github.com/flexd/flexd/sim/epochlog"
	"github.com/flexd/flexd/sim/tasksim"
)

// The --plot helpers of simulate and replay. They live apart from the
// commands so that `flexd simulate study --plot FILE` can call plotStudy
// after its rows are written, and the checks run before any long work.

// checkPlotPath reports a --plot path chart cannot write (neither .png nor
// .svg, or its directory missing or not writable), naming the path, so
// that a command fails before it spends minutes on a study rather than
// after, on a temporary file.
func checkPlotPath(path string) error {
	if _, err := chart.Format(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: the directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("%s: %s is not a directory", path, dir)
	}
	probe, err := os.CreateTemp(dir, ".flexd-plot-check-*")
	if err != nil {
		return fmt.Errorf("%s: the directory %s is not writable: %w", path, dir, err)
	}
	probe.Close()
	if err := os.Remove(probe.Name()); err != nil {
		return fmt.Errorf("%s: removing the write check %s: %w", path, probe.Name(), err)
	}
	return nil
}

// plotStudy draws the rows of `flexd simulate study` to path: FLEX Fig.
// 5a or 5b for a sweep (which must hold one metric: pass --metrics with
// one), Fig. 5c otherwise. Errors the caller's flags caused are
// usageErrors.
func plotStudy(path string, rows []sim.Row) error {
	if err := checkPlotPath(path); err != nil {
		return usageError{fmt.Errorf("--plot: %w", err)}
	}
	if len(rows) > 0 && rows[0].Sweep != "" {
		var metrics []penalty.Metric
		for _, r := range rows {
			if !slices.Contains(metrics, r.Metric) {
				metrics = append(metrics, r.Metric)
			}
		}
		if len(metrics) > 1 {
			return usageError{fmt.Errorf("--plot: a sweep chart shows one metric, the rows hold %d; pass --metrics with one", len(metrics))}
		}
	}
	if err := chart.WriteRatioChart(path, rows, chart.RatioOptions{}); err != nil {
		if errors.Is(err, chart.ErrNoData) {
			return fmt.Errorf("--plot %s: every ratio is undefined (OPT was never positive): %w", path, err)
		}
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

// plotReplay draws the map-phase plan of a replay's last epoch under its
// first requested policy (the one after epochlog.Logged) to path.
func plotReplay(path string, rep epochlog.Report) error {
	if len(rep.Last) < 2 || len(rep.Epochs) == 0 {
		return fmt.Errorf("--plot %s: %w: the replay decided no epoch under a policy", path, chart.ErrNoData)
	}
	dec, pol := rep.Last[1], rep.Policies[1]
	last := rep.Epochs[len(rep.Epochs)-1]
	res := dec.Phases.Map
	if res == nil || len(res.Allocations) == 0 {
		return fmt.Errorf("--plot %s: %w: no job has map work in epoch %d", path, chart.ErrNoData, last.Epoch)
	}
	name := last.Cluster
	if name == "" {
		name = "the log"
	}
	title := fmt.Sprintf("%s, epoch %d: map slots per job under %s", name, last.Epoch, pol)
	if err := chart.WriteScheduleChart(path, chart.ScheduleOf(title, *res, dec.Budgets.Map), chart.ScheduleOptions{}); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

// plotRun draws the slots each job held over a closed-loop run (map plus
// reduce), FLEX Fig. 4's picture for a realised schedule.
func plotRun(path string, res cluster.Result, jobs []cluster.Job, slots int) error {
	tl := res.Report.Timeline
	if tl == nil || len(tl.Intervals) == 0 {
		return fmt.Errorf("--plot %s: %w: the run recorded no allocation", path, chart.ErrNoData)
	}
	ids := make([]string, len(jobs))
	for i, j := range jobs {
		ids[i] = j.ID
	}
	title := fmt.Sprintf("%s: slots per job (map + reduce) over the run", res.Variant.Label)
	if err := chart.WriteScheduleChart(path, chart.Schedule{Title: title, Jobs: ids, Plan: *tl, Slots: slots, XLabel: "time from the run's start (s)"}, chart.ScheduleOptions{}); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}

// plotTasks draws a task-level run's attempts per node (sim/tasksim with
// Timeline) to path.
func plotTasks(path string, rep tasksim.Report, cfg tasksim.Config, title string) error {
	tl := chart.Timeline{Title: title}
	for _, n := range cfg.Nodes {
		label := n.ID
		if n.Level > 0 {
			label = fmt.Sprintf("%s (L%d)", n.ID, n.Level)
		}
		tl.Rows = append(tl.Rows, chart.TimelineRow{Label: label, Lanes: n.MapSlots + n.ReduceSlots})
	}
	for _, s := range rep.Attempts {
		kind := chart.OriginalWon
		switch {
		case s.Speculative && s.Won:
			kind = chart.BackupWon
		case s.Speculative:
			kind = chart.BackupKilled
		case !s.Won:
			kind = chart.OriginalKilled
		}
		tl.Spans = append(tl.Spans, chart.TimelineSpan{Row: s.Node, Lane: s.Lane, Start: s.Start, End: s.End, Kind: kind})
	}
	if err := chart.WriteTimeline(path, tl); err != nil {
		return fmt.Errorf("--plot %s: %w", path, err)
	}
	return nil
}
