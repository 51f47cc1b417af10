package chart_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
	"github.com/flexd/flexd/sim/chart"
	"github.com/flexd/flexd/solver"
)

func sweepRows(metrics ...penalty.Metric) []sim.Row {
	var rows []sim.Row
	for _, v := range []float64{0.05, 0.5, 0.95} {
		for _, m := range metrics {
			for k, pol := range []string{"flex", "fair", "fifo"} {
				rows = append(rows, sim.Row{Sweep: "slack", Value: v, Metric: m, Policy: pol,
					Avg: 1 + float64(k)*v, Worst: 1.2 + float64(k)*v})
			}
		}
	}
	return rows
}

func studyRows() []sim.Row {
	nan := math.NaN()
	return []sim.Row{
		{Metric: penalty.AvgResponseTime, Policy: "flex", Avg: 1, Worst: 1},
		{Metric: penalty.AvgResponseTime, Policy: "fair", Avg: 1.5, Worst: 2},
		{Metric: penalty.WeightedTardiness, Policy: "flex", Avg: 1, Worst: 1.1},
		{Metric: penalty.WeightedTardiness, Policy: "fair", Avg: 6, Worst: 90},
		// A metric whose every ratio is undefined is left off.
		{Metric: penalty.AvgLateness, Policy: "flex", Avg: nan, Worst: nan},
		{Metric: penalty.AvgLateness, Policy: "fair", Avg: nan, Worst: nan},
	}
}

// threeJobs is a solver result with a plan of three jobs: b finishes
// first, then a, then c.
func threeJobs(t *testing.T) solver.Result {
	t.Helper()
	res, err := solver.Flex{}.Solve(solver.Problem{Slots: 10, Jobs: []solver.Job{
		{ID: "a", Min: 1, Max: 8, Work: 40, Weight: 1},
		{ID: "b", Min: 1, Max: 8, Work: 10, Weight: 1},
		{ID: "c", Min: 2, Max: 10, Work: 200, Weight: 1},
	}})
	if err != nil {
		t.Fatalf("solving: %v", err)
	}
	return res
}

func TestRenderRatioChart(t *testing.T) {
	for name, tc := range map[string]struct {
		rows    []sim.Row
		opts    chart.RatioOptions
		want    []string // texts the SVG must hold
		notWant []string
		wantErr string
	}{
		"slack sweep (Fig. 5a)": {
			rows: sweepRows(penalty.AvgResponseTime),
			want: []string{"slack (%)", "ratio to optimal", "flex avg", "flex worst", "fair avg", "fifo worst", "Fig. 5a"},
		},
		"small-jobs sweep (Fig. 5b)": {
			rows: func() []sim.Row {
				rows := sweepRows(penalty.AvgResponseTime)
				for i := range rows {
					rows[i].Sweep = "small"
				}
				return rows
			}(),
			want: []string{"small jobs (%)", "Fig. 5b"},
		},
		"a sweep of two metrics needs a choice": {
			rows:    sweepRows(penalty.AvgResponseTime, penalty.AvgStretch),
			wantErr: "choose one",
		},
		"the chosen metric of a sweep": {
			rows: sweepRows(penalty.AvgResponseTime, penalty.AvgStretch),
			opts: chart.RatioOptions{Metric: penalty.AvgStretch, Title: "stretch only"},
			want: []string{"stretch only"},
		},
		"a metric the sweep lacks": {
			rows:    sweepRows(penalty.AvgResponseTime),
			opts:    chart.RatioOptions{Metric: penalty.MaxStretch},
			wantErr: "no metric",
		},
		"a study (Fig. 5c) on a log scale": {
			rows:    studyRows(),
			want:    []string{"avg_response_time", "weighted_tardiness", "worst", "log scale", "Fig. 5c"},
			notWant: []string{"avg_lateness"},
		},
		"no rows": {wantErr: "no ratio"},
		"only undefined ratios": {
			rows:    studyRows()[4:],
			wantErr: "no ratio",
		},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			err := chart.RenderRatioChart(&buf, "svg", tc.rows, tc.opts)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("RenderRatioChart: %v", err)
			}
			svg := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(svg, ">"+w) && !strings.Contains(svg, w) {
					t.Errorf("the chart lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(svg, w) {
					t.Errorf("the chart shows %q", w)
				}
			}
		})
	}
}

func TestRenderScheduleChart(t *testing.T) {
	res := threeJobs(t)
	for name, tc := range map[string]struct {
		top     int
		want    []string
		notWant []string
	}{
		"every job named":              {top: 9, want: []string{">a<", ">b<", ">c<", "slots (10)"}, notWant: []string{"other"}},
		"the biggest job and the rest": {top: 1, want: []string{">c<", "other (2 jobs)"}, notWant: []string{">a<", ">b<"}},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			s := chart.ScheduleOf("three jobs", res, 10)
			if err := chart.RenderScheduleChart(&buf, "svg", s, chart.ScheduleOptions{Top: tc.top}); err != nil {
				t.Fatalf("RenderScheduleChart: %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("the chart lacks %q", w)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(buf.String(), w) {
					t.Errorf("the chart shows %q", w)
				}
			}
		})
	}
}

func TestScheduleChartRejectsBadInput(t *testing.T) {
	res := threeJobs(t)
	for name, tc := range map[string]struct {
		s       chart.Schedule
		opts    chart.ScheduleOptions
		wantErr string
	}{
		"an empty plan":        {s: chart.Schedule{}, wantErr: "no intervals"},
		"names and plan apart": {s: chart.Schedule{Jobs: []string{"a"}, Plan: res.Plan}, wantErr: "1 job names for a plan of 3"},
		"a negative top":       {s: chart.ScheduleOf("", res, 0), opts: chart.ScheduleOptions{Top: -1}, wantErr: "top = -1"},
	} {
		t.Run(name, func(t *testing.T) {
			err := chart.RenderScheduleChart(&bytes.Buffer{}, "png", tc.s, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// TestWriteCharts writes each kind in each format, checks the file is a
// PNG or SVG, that the same input gives the same bytes, and that a bad
// extension or a failed render leaves no file.
func TestWriteCharts(t *testing.T) {
	dir := t.TempDir()
	res := threeJobs(t)
	writers := map[string]func(path string) error{
		"sweep": func(p string) error {
			return chart.WriteRatioChart(p, sweepRows(penalty.AvgResponseTime), chart.RatioOptions{})
		},
		"study": func(p string) error { return chart.WriteRatioChart(p, studyRows(), chart.RatioOptions{}) },
		"schedule": func(p string) error {
			return chart.WriteScheduleChart(p, chart.ScheduleOf("t", res, 10), chart.ScheduleOptions{})
		},
	}
	magic := map[string]string{".png": "\x89PNG", ".svg": "<?xml"}
	for name, write := range writers {
		for ext, head := range magic {
			t.Run(name+ext, func(t *testing.T) {
				path := filepath.Join(dir, name+ext)
				if err := write(path); err != nil {
					t.Fatalf("writing %s: %v", path, err)
				}
				first, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.HasPrefix(first, []byte(head)) {
					t.Errorf("%s starts %q, want %q", path, first[:min(8, len(first))], head)
				}
				if err := write(path); err != nil {
					t.Fatalf("writing %s again: %v", path, err)
				}
				again, _ := os.ReadFile(path)
				if !bytes.Equal(first, again) {
					t.Errorf("%s: the same input gave different bytes", path)
				}
			})
		}
	}
	t.Run("bad extension", func(t *testing.T) {
		path := filepath.Join(dir, "chart.pdf")
		err := writers["sweep"](path)
		if !errors.Is(err, chart.ErrFormat) {
			t.Fatalf("err = %v, want ErrFormat", err)
		}
		if _, serr := os.Stat(path); !os.IsNotExist(serr) {
			t.Errorf("%s exists after a refused write", path)
		}
	})
	t.Run("failed render", func(t *testing.T) {
		path := filepath.Join(dir, "empty.png")
		if err := chart.WriteRatioChart(path, nil, chart.RatioOptions{}); !errors.Is(err, chart.ErrNoData) {
			t.Fatalf("err = %v, want ErrNoData", err)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") || e.Name() == "empty.png" {
				t.Errorf("%s left behind by a failed write", e.Name())
			}
		}
	})
}
