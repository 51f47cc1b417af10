package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// fakePolicy scores a problem by a made-up function of its jobs, so the
// study's plumbing is tested without the real policies: factor scales the
// value, and failOver makes Solve fail when the first job's work exceeds it.
type fakePolicy struct {
	name     string
	factor   float64
	failOver float64
}

func (f fakePolicy) Name() string { return f.name }

func (f fakePolicy) Solve(p solver.Problem) (solver.Result, error) {
	if f.failOver > 0 && p.Jobs[0].Work > f.failOver {
		return solver.Result{}, errors.New("boom")
	}
	return solver.Result{Value: f.factor * fakeOpt(p, p.Metric)}, nil
}

// fakeOpt is the fake optimum: positive for every metric but lateness,
// where it is positive on about half the instances.
func fakeOpt(p solver.Problem, m penalty.Metric) float64 {
	v := p.Jobs[0].Work + float64(len(m))
	if m == penalty.AvgLateness {
		v = p.Jobs[0].Deadline - WorkPerSlot/2
	}
	return v
}

func fakeOracle(p solver.Problem, ms []penalty.Metric) ([]float64, error) {
	out := make([]float64, len(ms))
	for x, m := range ms {
		out[x] = fakeOpt(p, m)
	}
	return out, nil
}

func fakeRegistry(ps ...fakePolicy) func(string) (solver.Solver, bool) {
	return func(name string) (solver.Solver, bool) {
		for _, p := range ps {
			if p.name == name {
				return p, true
			}
		}
		return nil, false
	}
}

func TestSummarise(t *testing.T) {
	cfg := StudyConfig{Metrics: []penalty.Metric{penalty.AvgResponseTime, penalty.AvgLateness}, Policies: []string{"a", "b"}}
	outs := []outcome{
		{opt: []float64{2, -1}, val: [][]float64{{2, 5}, {4, 5}}},
		{opt: []float64{4, 0}, val: [][]float64{{5, 5}, {4, 5}}},
		{opt: []float64{1, 2}, val: [][]float64{{1, 3}, {3, 2}}},
	}
	got, err := summarise(cfg, outs)
	if err != nil {
		t.Fatal(err)
	}
	want := []Row{
		{Metric: penalty.AvgResponseTime, Policy: "a", Instances: 3, Avg: (1 + 1.25 + 1) / 3, Worst: 1.25, WorstInstance: 1},
		{Metric: penalty.AvgResponseTime, Policy: "b", Instances: 3, Avg: (2 + 1 + 3) / 3.0, Worst: 3, WorstInstance: 2},
		{Metric: penalty.AvgLateness, Policy: "a", Instances: 1, Skipped: 2, Avg: 1.5, Worst: 1.5, WorstInstance: 2},
		{Metric: penalty.AvgLateness, Policy: "b", Instances: 1, Skipped: 2, Avg: 1, Worst: 1, WorstInstance: 2},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("summarise (-want +got):\n%s", diff)
	}

	none, err := summarise(cfg, []outcome{{opt: []float64{0, 0}, val: [][]float64{{1, 1}, {1, 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r := none[0]; r.Instances != 0 || r.Skipped != 1 || !math.IsNaN(r.Avg) || !math.IsNaN(r.Worst) || r.WorstInstance != -1 {
		t.Errorf("all skipped: got %+v, want NaN ratios and no worst instance", r)
	}
}

func TestRunStudyDeterministicAcrossWorkers(t *testing.T) {
	base := StudyConfig{
		Workload:  DefaultWorkload(),
		Instances: 37,
		Metrics:   []penalty.Metric{penalty.AvgResponseTime, penalty.AvgLateness, penalty.SLACost},
		Policies:  []string{"good", "bad"},
		Oracle:    fakeOracle,
		byName:    fakeRegistry(fakePolicy{name: "good", factor: 1}, fakePolicy{name: "bad", factor: 1.5}),
	}
	var first []Row
	for _, workers := range []int{1, 2, 7, 64} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			cfg := base
			cfg.Workers = workers
			calls, last := 0, 0
			cfg.Progress = func(done, total int) {
				calls++
				if done != last+1 || total != cfg.Instances {
					t.Errorf("progress(%d, %d) after %d", done, total, last)
				}
				last = done
			}
			rows, err := RunStudy(cfg, 9)
			if err != nil {
				t.Fatal(err)
			}
			if calls != cfg.Instances {
				t.Errorf("progress called %d times, want %d", calls, cfg.Instances)
			}
			if len(rows) != 6 {
				t.Fatalf("%d rows, want 6", len(rows))
			}
			for _, r := range rows {
				want := 1.0
				if r.Policy == "bad" {
					want = 1.5
				}
				if math.Abs(r.Avg-want) > 1e-12 || math.Abs(r.Worst-want) > 1e-12 {
					t.Errorf("%s/%s: avg %v worst %v, want %v", r.Metric, r.Policy, r.Avg, r.Worst, want)
				}
				if r.Instances+r.Skipped != cfg.Instances {
					t.Errorf("%s/%s: %d counted + %d skipped != %d", r.Metric, r.Policy, r.Instances, r.Skipped, cfg.Instances)
				}
				if (r.Metric == penalty.AvgLateness) != (r.Skipped > 0) {
					t.Errorf("%s/%s: skipped %d", r.Metric, r.Policy, r.Skipped)
				}
			}
			if first == nil {
				first = rows
			} else if diff := cmp.Diff(first, rows, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("rows differ from workers=1 (-1 +%d):\n%s", workers, diff)
			}
		})
	}
}

func TestRunStudyErrorIsLowestInstance(t *testing.T) {
	w := DefaultWorkload()
	// Find the instances whose first job is above a threshold: the study
	// must report the lowest of them whatever the number of workers.
	const over = 150.0
	wantIdx := -1
	for i := range 60 {
		if GenerateInstance(w, 5, i).Jobs[0].Work > over {
			wantIdx = i
			break
		}
	}
	if wantIdx < 1 {
		t.Fatalf("fixture: first failing instance %d, want one after instance 0", wantIdx)
	}
	for _, workers := range []int{1, 2, 5} {
		cfg := StudyConfig{
			Workload: w, Instances: 60, Workers: workers, Policies: []string{"f"},
			Oracle: fakeOracle, byName: fakeRegistry(fakePolicy{name: "f", factor: 1, failOver: over}),
		}
		_, err := RunStudy(cfg, 5)
		want := fmt.Sprintf("instance %d: policy f, metric avg_response_time: boom", wantIdx)
		if err == nil || err.Error() != want {
			t.Errorf("workers=%d: error %v, want %q", workers, err, want)
		}
	}
}

func TestStudyConfigValidate(t *testing.T) {
	reg := fakeRegistry(fakePolicy{name: "f"})
	cases := map[string]struct {
		cfg     StudyConfig
		wantErr string
	}{
		"defaults":       {StudyConfig{Workload: DefaultWorkload(), byName: reg, Policies: []string{"f"}}, ""},
		"too many jobs":  {StudyConfig{Workload: Workload{Jobs: 11, Slots: 100}, byName: reg, Policies: []string{"f"}}, "OPT is exhaustive: jobs = 11, at most 10"},
		"bad workload":   {StudyConfig{Workload: Workload{Jobs: 5, Slots: 100, Slack: 2}, byName: reg}, "slack = 2, want a share in [0, 1]"},
		"unknown metric": {StudyConfig{Workload: DefaultWorkload(), Metrics: []penalty.Metric{"speed"}, byName: reg}, `unknown metric "speed"`},
		"unknown policy": {StudyConfig{Workload: DefaultWorkload(), Policies: []string{"lifo"}, byName: reg}, `unknown policy "lifo"`},
		"bad instances":  {StudyConfig{Workload: DefaultWorkload(), Instances: -1, byName: reg, Policies: []string{"f"}}, "instances = -1, want >= 1"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			err := c.cfg.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.wantErr {
				t.Errorf("Validate() = %q, want %q", got, c.wantErr)
			}
		})
	}
	if err := (StudyConfig{Workload: Workload{Jobs: 12, Slots: 10}}).Validate(); !errors.Is(err, ErrTooManyJobs) {
		t.Errorf("J = 12: error %v does not wrap ErrTooManyJobs", err)
	}
}

func TestRunSweep(t *testing.T) {
	cfg := StudyConfig{
		Workload: DefaultWorkload(), Instances: 4, Metrics: []penalty.Metric{penalty.AvgResponseTime},
		Policies: []string{"f"}, Oracle: fakeOracle, byName: fakeRegistry(fakePolicy{name: "f", factor: 2}),
	}
	last := 0
	cfg.Progress = func(done, total int) {
		if total != 12 || done != last+1 {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
	}
	rows, err := RunSweep(cfg, 1, "slack", []float64{0.25, 0.5, 0.75})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s=%g %s %s %g", r.Sweep, r.Value, r.Metric, r.Policy, r.Avg))
	}
	want := []string{
		"slack=0.25 avg_response_time f 2",
		"slack=0.5 avg_response_time f 2",
		"slack=0.75 avg_response_time f 2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sweep rows (-want +got):\n%s", diff)
	}
	if _, err := RunSweep(cfg, 1, "jobs", []float64{1}); err == nil {
		t.Error("sweep over jobs: no error")
	}
	if _, err := RunSweep(cfg, 1, "small", []float64{1.5}); err == nil {
		t.Error("sweep small = 1.5: no error")
	}
	if got := SweepValues("slack"); len(got) != 10 || got[0] != 0.05 || got[9] != 0.95 {
		t.Errorf("SweepValues(slack) = %v", got)
	}
	if got := SweepValues("small"); len(got) != 10 || got[0] != 0 || got[9] != 0.9 {
		t.Errorf("SweepValues(small) = %v", got)
	}
}

func TestWriteRows(t *testing.T) {
	rows := []Row{
		{Metric: penalty.AvgResponseTime, Policy: "flex", Instances: 3, Avg: 1.00001, Worst: 1.5, WorstInstance: 2},
		{Metric: penalty.AvgLateness, Policy: "fifo", Skipped: 3, Avg: math.NaN(), Worst: math.NaN(), WorstInstance: -1},
	}
	cases := map[string]string{
		"table": "metric             policy  avg     worst   n  skipped\n" +
			"avg_response_time  flex    1.0000  1.5000  3  0\n" +
			"avg_lateness       fifo    -       -       0  3\n",
		"csv": "metric,policy,avg,worst,instances,skipped,worst_instance\n" +
			"avg_response_time,flex,1.00001,1.5,3,0,2\n" +
			"avg_lateness,fifo,,,0,3,-1\n",
		"json": `[
  {
    "metric": "avg_response_time",
    "policy": "flex",
    "instances": 3,
    "skipped": 0,
    "avg": 1.00001,
    "worst": 1.5,
    "worst_instance": 2
  },
  {
    "metric": "avg_lateness",
    "policy": "fifo",
    "instances": 0,
    "skipped": 3,
    "avg": null,
    "worst": null,
    "worst_instance": -1
  }
]
`,
	}
	for format, want := range cases {
		t.Run(format, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteRows(&b, format, rows); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s output (-want +got):\n%s", format, diff)
			}
		})
	}
	var b bytes.Buffer
	sweep := []Row{{Sweep: "slack", Value: 0.75, Metric: penalty.AvgResponseTime, Policy: "fair", Instances: 1, Avg: 1.5, Worst: 1.5}}
	if err := WriteRows(&b, "csv", sweep); err != nil || !strings.HasPrefix(b.String(), "slack,metric,") || !strings.Contains(b.String(), "\n0.75,avg_response_time,fair,") {
		t.Errorf("sweep csv: %v\n%s", err, b.String())
	}
	if err := WriteRows(&b, "xml", rows); err == nil {
		t.Error("format xml: no error")
	}
}

// effortEcho scores a problem at fakeOpt times 2 plus the search effort it
// was given, so a study shows which effort reached the policy.
type effortEcho struct{}

func (effortEcho) Name() string { return "echo" }

func (effortEcho) Solve(p solver.Problem) (solver.Result, error) {
	return solver.Result{Value: fakeOpt(p, p.Metric) * float64(2+p.Options.Effort)}, nil
}

// echoStudy runs cfg (its instances, metrics, effort and search seeds) on
// the default workload with echo as its one policy, against fakeOracle,
// and fails t if the oracle sees the problem with any search options (an
// effort or a search seed): the reference is searched as generated.
func echoStudy(t *testing.T, echo solver.Solver, cfg StudyConfig) []Row {
	t.Helper()
	cfg.Workload = DefaultWorkload()
	cfg.Policies = []string{"echo"}
	cfg.Oracle = func(p solver.Problem, ms []penalty.Metric) ([]float64, error) {
		if p.Options.Effort != 0 || p.Options.SearchSeed != 0 {
			t.Errorf("effort %d, search seeds %d: the oracle saw effort %d, search seed %d",
				cfg.Effort, cfg.SearchSeeds, p.Options.Effort, p.Options.SearchSeed)
		}
		return fakeOracle(p, ms)
	}
	cfg.byName = func(name string) (solver.Solver, bool) { return echo, name == "echo" }
	rows, err := RunStudy(cfg, 3)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// seedEcho scores a problem at fakeOpt times 1 plus the search seed it was
// given, so a study shows which seeds reached the policy.
type seedEcho struct{}

func (seedEcho) Name() string { return "echo" }

func (seedEcho) Solve(p solver.Problem) (solver.Result, error) {
	return solver.Result{Value: fakeOpt(p, p.Metric) * float64(1+p.Options.SearchSeed)}, nil
}

// TestRunStudySearchSeeds: with SearchSeeds n each instance is solved with
// seeds 0 to n-1 and scored at their mean (1 + (n-1)/2 times the reference
// here); 0 and 1 solve with seed 0 alone; the reference sees no seed; more
// than MaxSearchSeeds, or fewer than 0, is refused.
func TestRunStudySearchSeeds(t *testing.T) {
	for _, seeds := range []int{0, 1, 4} {
		rows := echoStudy(t, seedEcho{}, StudyConfig{
			Instances:   3,
			Metrics:     []penalty.Metric{penalty.AvgResponseTime, penalty.Makespan},
			SearchSeeds: seeds,
		})
		want := 1 + float64(max(1, seeds)-1)/2
		for _, r := range rows {
			if math.Abs(r.Avg-want) > 1e-12 || math.Abs(r.Worst-want) > 1e-12 {
				t.Errorf("seeds %d: row %+v, want average and worst ratio %v", seeds, r, want)
			}
		}
		if len(rows) != 2 {
			t.Errorf("seeds %d: %d rows, want 2", seeds, len(rows))
		}
	}
	for _, bad := range []int{-1, MaxSearchSeeds + 1} {
		cfg := StudyConfig{Workload: DefaultWorkload(), Instances: 1, SearchSeeds: bad}
		if err := cfg.Validate(); err == nil {
			t.Errorf("search seeds %d: no error", bad)
		}
	}
}

// TestRunStudyEffort: the compared policies solve with the study's effort
// (the default, none, or n times the default), and the reference does not:
// its oracle sees the problem as generated.
func TestRunStudyEffort(t *testing.T) {
	for _, effort := range []int{0, solver.FastestEffort, 3} {
		rows := echoStudy(t, effortEcho{}, StudyConfig{
			Instances: 4,
			Metrics:   []penalty.Metric{penalty.AvgResponseTime},
			Effort:    effort,
		})
		if want := float64(2 + effort); len(rows) != 1 || math.Abs(rows[0].Avg-want) > 1e-12 {
			t.Errorf("effort %d: rows %+v, want one with average ratio %v", effort, rows, want)
		}
	}
}
