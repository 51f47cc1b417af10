package penalty

import (
	"math"
	"testing"
)

func TestMetricOf(t *testing.T) {
	job := Job{Submitted: 10, Weight: 2, Deadline: 30, HasDeadline: true, Iso: 4,
		SLA: []Step{{Deadline: 20, Penalty: 1}, {Deadline: 25, Penalty: 3}, {Deadline: 40, Penalty: 7}}}
	for name, tc := range map[string]struct {
		m    Metric
		c    float64
		want float64
	}{
		"response time is C - r":                 {AvgResponseTime, 25, 15},
		"max response time is C - r":             {MaxResponseTime, 25, 15},
		"weighted response time is w (C - r)":    {WeightedResponseTime, 25, 30},
		"max weighted response time":             {MaxWeightedResponseTime, 25, 30},
		"makespan is C":                          {Makespan, 25, 25},
		"stretch divides by iso":                 {AvgStretch, 26, 4},
		"max stretch divides by iso":             {MaxStretch, 26, 4},
		"on time at the deadline is not tardy":   {TardyJobs, 30, 0},
		"after the deadline is tardy":            {TardyJobs, 30.5, 1},
		"weighted tardy counts the weight":       {WeightedTardyJobs, 31, 2},
		"weighted on time is free":               {WeightedTardyJobs, 29, 0},
		"tardiness is zero when early":           {AvgTardiness, 20, 0},
		"tardiness is C - d when late":           {AvgTardiness, 36, 6},
		"weighted tardiness":                     {WeightedTardiness, 36, 12},
		"max tardiness":                          {MaxTardiness, 36, 6},
		"max weighted tardiness":                 {MaxWeightedTardiness, 36, 12},
		"lateness may be negative":               {AvgLateness, 20, -10},
		"max lateness":                           {MaxLateness, 35, 5},
		"max weighted lateness":                  {MaxWeightedLateness, 35, 10},
		"SLA before the first step costs 0":      {SLACost, 20, 0},
		"SLA after the first step":               {SLACost, 21, 1},
		"SLA charges the last step passed":       {SLACost, 30, 3},
		"SLA after every step charges the last":  {SLACost, 100, 7},
		"unknown metric is NaN (never accepted)": {Metric("nope"), 1, math.NaN()},
	} {
		t.Run(name, func(t *testing.T) {
			got := tc.m.Of(job, tc.c)
			if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("%s.Of(C=%v) = %v, want %v", tc.m, tc.c, got, tc.want)
			}
		})
	}
}

func TestMenu(t *testing.T) {
	all := All()
	if len(all) != 17 {
		t.Fatalf("the menu has %d metrics, docs/algorithms.md section 2 has 17", len(all))
	}
	for _, in := range all {
		got, ok := Lookup(in.Name)
		if !ok || got.Name != in.Name {
			t.Errorf("Lookup(%q) = %v, %v", in.Name, got, ok)
		}
		if in.Aggregate != Sum && in.Aggregate != Max {
			t.Errorf("%s: aggregate %q", in.Name, in.Aggregate)
		}
		if in.Step && in.Convex {
			t.Errorf("%s: a step metric cannot be convex", in.Name)
		}
	}
	// Step metrics are minisum only (FLEX 2.1).
	for _, m := range []Metric{TardyJobs, WeightedTardyJobs, SLACost} {
		if in, _ := Lookup(m); !in.Step || in.Aggregate != Sum {
			t.Errorf("%s: step=%v aggregate=%s, want a step minisum metric", m, in.Step, in.Aggregate)
		}
	}
}

// The convexity flag must be true to the definition the solver relies on:
// with C = W/s, the marginal gains F(s) - F(s+1) do not increase with s.
func TestConvexFlagHolds(t *testing.T) {
	job := Job{Submitted: 0, Weight: 1.5, Deadline: 3, HasDeadline: true, Iso: 2,
		SLA: []Step{{Deadline: 2, Penalty: 1}, {Deadline: 5, Penalty: 2}}}
	for _, in := range All() {
		if !in.Convex {
			continue
		}
		const work = 100.0
		prevGain := math.Inf(1)
		for s := 1; s < 200; s++ {
			gain := in.Name.Of(job, work/float64(s)) - in.Name.Of(job, work/float64(s+1))
			if gain > prevGain+1e-12 {
				t.Errorf("%s: gain rises from %v to %v at s=%d", in.Name, prevGain, gain, s)
				break
			}
			prevGain = gain
		}
	}
}

func TestCombineAndCost(t *testing.T) {
	if got := Combine(Sum, []float64{1, 2, 3.5}); got != 6.5 {
		t.Errorf("sum = %v, want 6.5", got)
	}
	if got := Combine(Max, []float64{1, 7, 3}); got != 7 {
		t.Errorf("max = %v, want 7", got)
	}
	jobs := []Job{{Submitted: 0, Weight: 1}, {Submitted: 5, Weight: 3}}
	// Per-job metrics: response time 10 for the first, weighted response
	// time 3 * (12 - 5) = 21 for the second.
	if got := Cost(Sum, []Metric{AvgResponseTime, WeightedResponseTime}, jobs, []float64{10, 12}); got != 31 {
		t.Errorf("cost = %v, want 31", got)
	}
	if got := Cost(Max, []Metric{MaxResponseTime}, jobs, []float64{10, 12}); got != 10 {
		t.Errorf("max cost = %v, want 10", got)
	}
}
