package main

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/sim"
)

func TestPlotStudy(t *testing.T) {
	dir := t.TempDir()
	sweep := func(metrics ...penalty.Metric) []sim.Row {
		var rows []sim.Row
		for _, v := range []float64{0.1, 0.5} {
			for _, m := range metrics {
				rows = append(rows, sim.Row{Sweep: "slack", Value: v, Metric: m, Policy: "flex", Avg: 1, Worst: 1},
					sim.Row{Sweep: "slack", Value: v, Metric: m, Policy: "fair", Avg: 1.3, Worst: 1.6})
			}
		}
		return rows
	}
	for name, tc := range map[string]struct {
		file      string
		rows      []sim.Row
		wantUsage bool
		wantErr   string
	}{
		"a sweep":                     {file: "sweep.png", rows: sweep(penalty.AvgResponseTime)},
		"a study":                     {file: "study.svg", rows: []sim.Row{{Metric: penalty.AvgStretch, Policy: "flex", Avg: 1, Worst: 1}}},
		"a sweep of two metrics":      {file: "two.png", rows: sweep(penalty.AvgResponseTime, penalty.AvgStretch), wantUsage: true, wantErr: "pass --metrics with one"},
		"an unsupported file type":    {file: "sweep.pdf", rows: sweep(penalty.AvgResponseTime), wantUsage: true, wantErr: "--plot"},
		"nothing defined to draw":     {file: "nan.png", rows: []sim.Row{{Metric: penalty.AvgLateness, Policy: "flex", Avg: math.NaN(), Worst: math.NaN()}}, wantErr: "every ratio is undefined"},
		"a directory that is missing": {file: filepath.Join("no", "such.png"), rows: sweep(penalty.AvgResponseTime), wantUsage: true, wantErr: "does not exist"},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, tc.file)
			err := plotStudy(path, tc.rows)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("plotStudy: %v", err)
				}
				if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
					t.Fatalf("%s not written: %v", path, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			var ue usageError
			if got := errors.As(err, &ue); got != tc.wantUsage {
				t.Errorf("usage error = %v, want %v", got, tc.wantUsage)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%s exists after a failed plot", path)
			}
		})
	}
}
