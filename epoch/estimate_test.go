package epoch_test

import (
	"maps"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/estimate"
	"github.com/flexd/flexd/solver"
)

// readmeEpoch is the README's example epoch (examples/epoch.json).
func readmeEpoch() epoch.Request {
	return epoch.Request{
		Epoch: 1, Now: 100, EpochLength: 0.5, Objective: "avg_response_time",
		Slots: epoch.Slots{Map: 20, Reduce: 10},
		Jobs: []epoch.Job{
			{ID: "job_1", Submitted: 90,
				Map:    &epoch.Phase{Min: 2, Max: 20, Work: 400, Pending: 30, Running: 5, Tasks: 40},
				Reduce: &epoch.Phase{Min: 1, Max: 5, Work: 100, Pending: 5, Tasks: 5}},
			{ID: "job_2", Submitted: 95,
				Map: &epoch.Phase{Min: 2, Max: 20, Work: 60, Pending: 4, Running: 2, Tasks: 8}},
		},
	}
}

// statsOnly is the README's epoch as a shim that knows only task statistics
// sends it: no work, and the mean task times that imply the same work
// (job_1's map: 5 of 40 completed, 400 slot-seconds over 35 tasks left;
// its reduce, with nothing completed, a seed of 20 s from past runs;
// job_2's map: 2 of 8 completed, 60 over 6).
func statsOnly() epoch.Request {
	req := readmeEpoch()
	req.Estimate = epoch.Estimate{Work: "extrapolate"}
	j1, j2 := req.Jobs[0], req.Jobs[1]
	m1, r1, m2 := *j1.Map, *j1.Reduce, *j2.Map
	m1.Work, m1.AvgTaskTime = 0, 400.0/35
	r1.Work, r1.AvgTaskTime = 0, 20
	m2.Work, m2.AvgTaskTime = 0, 10
	req.Jobs = []epoch.Job{
		{ID: j1.ID, Submitted: j1.Submitted, Map: &m1, Reduce: &r1},
		{ID: j2.ID, Submitted: j2.Submitted, Map: &m2},
	}
	return req
}

// TestEstimateF7: the README's epoch with its work replaced by the
// statistics that imply it gets the same budgets, phases and allocations
// (plan times within 1e-9: 400/35*35 need not be 400.0 exactly), plus the
// estimates.
func TestEstimateF7(t *testing.T) {
	want, _, err := epoch.Decide(readmeEpoch(), epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := epoch.Decide(statsOnly(), epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	close := cmpopts.EquateApprox(1e-9, 0)
	if diff := cmp.Diff(want.Budgets, got.Budgets); diff != "" {
		t.Errorf("budgets differ (-given +estimated):\n%s", diff)
	}
	if diff := cmp.Diff(want.Allocations, got.Allocations); diff != "" {
		t.Errorf("allocations differ (-given +estimated):\n%s", diff)
	}
	if diff := cmp.Diff(want.Phases, got.Phases, close); diff != "" {
		t.Errorf("phases differ (-given +estimated):\n%s", diff)
	}
	wantEst := []epoch.JobEstimate{
		{ID: "job_1",
			Map:    &estimate.Work{Work: 400, TotalWork: 400.0 / 35 * 40, TaskTime: 400.0 / 35, Source: estimate.Extrapolated, TasksLeft: 35},
			Reduce: &estimate.Work{Work: 100, TotalWork: 100, TaskTime: 20, Source: estimate.PriorJob, TasksLeft: 5, MinRaised: true}},
		{ID: "job_2", Map: &estimate.Work{Work: 60, TotalWork: 80, TaskTime: 10, Source: estimate.Extrapolated, TasksLeft: 6}},
	}
	if diff := cmp.Diff(wantEst, got.Estimates, close); diff != "" {
		t.Errorf("estimates (-want +got):\n%s", diff)
	}
	if want.Estimates != nil {
		t.Errorf("estimates without an estimate object: %+v", want.Estimates)
	}
}

// TestEstimateGivenWorkWins: F4 and F5. A phase with work keeps it and is
// not in the estimates, so an extrapolating request whose phases all have
// work decides exactly as a given one; a phase with nothing pending or
// running and no work takes no part either way.
func TestEstimateGivenWorkWins(t *testing.T) {
	base := readmeEpoch()
	base.Jobs = append(base.Jobs, epoch.Job{ID: "done", Submitted: 50, Map: &epoch.Phase{Max: 4, Tasks: 9, AvgTaskTime: 3}})
	want, _, err := epoch.Decide(base, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	req := base
	req.Estimate = epoch.Estimate{Work: "extrapolate", MinOne: "always"}
	got, _, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("given work was overridden (-given +extrapolate):\n%s", diff)
	}
	if got.Allocations[2].MapReason != epoch.ReasonNone {
		t.Errorf("finished phase got %+v", got.Allocations[2])
	}
}

// TestEstimateReachesEveryStage: estimated work is what the ratio stage
// reads too (FRESH's theta is a ratio of remaining work), and a raised
// minimum is what the solver gets: a job without a completed task holds at
// least one slot.
func TestEstimateReachesEveryStage(t *testing.T) {
	req := epoch.Request{
		Epoch: 1, Slots: epoch.Slots{Map: 10, Reduce: 10}, Ratio: epoch.Ratio{Mode: "fresh"},
		Estimate: epoch.Estimate{Work: "extrapolate"},
		Jobs: []epoch.Job{
			{ID: "big", Map: &epoch.Phase{Max: 10, Tasks: 100, Pending: 80, Running: 10, AvgTaskTime: 30},
				Reduce: &epoch.Phase{Max: 10, Tasks: 10, Pending: 10, Started: true}},
			{ID: "new", Submitted: 1, Map: &epoch.Phase{Max: 10, Tasks: 50, Pending: 50}},
		},
	}
	dec, _, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	// Map: big 90 x 30 s, new 50 x 30 s (the cluster prior); reduce: 10 x
	// 60 s (no job has a reduce sample: the default).
	mapWork, reduceWork := 90*30.0+50*30.0, 10*60.0
	theta := mapWork / (mapWork + reduceWork)
	if math.Abs(dec.Budgets.Theta-theta) > 1e-9 {
		t.Errorf("FRESH theta %v, want %v from the estimated work", dec.Budgets.Theta, theta)
	}
	if a := dec.Allocations[1]; a.Map < 1 {
		t.Errorf("the job without a sample got %d map slots, want its raised minimum of 1 at least", a.Map)
	}
	if e := dec.Estimates[1].Map; e == nil || e.Source != estimate.PriorCluster || !e.MinRaised {
		t.Errorf("estimate of the new job %+v, want prior_cluster with the minimum raised", e)
	}
}

// TestEstimateMinOneRunnable: with min_one runnable a reduce phase without
// a sample is not raised while its job's maps have tasks left (no reduce
// task can complete before them), and is once they have none; map phases
// are raised as with no_sample.
func TestEstimateMinOneRunnable(t *testing.T) {
	req := epoch.Request{
		Epoch: 1, Slots: epoch.Slots{Map: 10, Reduce: 10},
		Estimate: epoch.Estimate{Work: "extrapolate", MinOne: "runnable"},
		Jobs: []epoch.Job{
			{ID: "old", Map: &epoch.Phase{Max: 10, Tasks: 100, Pending: 80, Running: 10, AvgTaskTime: 30},
				Reduce: &epoch.Phase{Max: 10, Tasks: 10, Pending: 10, Started: true}},
			{ID: "mapsdone", Submitted: 1, Map: &epoch.Phase{Max: 10, Tasks: 20, AvgTaskTime: 30},
				Reduce: &epoch.Phase{Max: 10, Tasks: 10, Pending: 10, Started: true}},
			{ID: "new", Submitted: 2, Map: &epoch.Phase{Max: 10, Tasks: 50, Pending: 50}},
		},
	}
	dec, _, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	raised := map[string]bool{}
	for _, e := range dec.Estimates {
		if e.Map != nil {
			raised[e.ID+".map"] = e.Map.MinRaised
		}
		if e.Reduce != nil {
			raised[e.ID+".reduce"] = e.Reduce.MinRaised
		}
	}
	want := map[string]bool{"old.map": false, "old.reduce": false, "mapsdone.reduce": true, "new.map": true}
	if !maps.Equal(raised, want) {
		t.Errorf("minimum raised %v, want %v", raised, want)
	}
	// no_sample, the paper's rule, raises the blocked reduce phase too.
	req.Estimate.MinOne = "no_sample"
	dec, _, err = epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	if r := dec.Estimates[0].Reduce; r == nil || !r.MinRaised {
		t.Errorf("no_sample: reduce estimate %+v, want its minimum raised", r)
	}
}

// TestEstimateBadInput: a bad estimate object or bad statistics are 422s
// naming the field, every problem at once; never a panic or a 500.
func TestEstimateBadInput(t *testing.T) {
	neg := -1.0
	req := statsOnly()
	req.Estimate = epoch.Estimate{Work: "guess", MinOne: "sometimes", DefaultTaskTime: &neg}
	req.Jobs[0].Map.AvgTaskTime = math.Inf(1)
	req.Jobs[1].Map.Pending = 9 // 9 pending + 2 running > 8 tasks
	req.Jobs[0].Reduce.RunningElapsed = -3
	_, _, err := epoch.Decide(req, epoch.ClusterState{})
	pe, ok := err.(*solver.ValidationError)
	if !ok {
		t.Fatalf("error %v, want a validation error", err)
	}
	var fields []string
	for _, fe := range pe.Problems {
		fields = append(fields, fe.Field)
	}
	for _, want := range []string{"estimate.work", "estimate.min_one", "estimate.default_task_time",
		"jobs[0].map.avg_task_time", "jobs[0].reduce.running_elapsed", "jobs[1].map.tasks"} {
		found := false
		for _, f := range fields {
			found = found || f == want
		}
		if !found {
			t.Errorf("problems %v lack %s", fields, want)
		}
	}
	zero := 0.0
	req = statsOnly()
	req.Estimate.DefaultTaskTime = &zero
	if _, _, err := epoch.Decide(req, epoch.ClusterState{}); err == nil {
		t.Error("default_task_time 0 accepted")
	}
}

// TestEstimateCasesThroughDecide: F1, F2, F3 and F6 of the specification
// (section 7.4) in one epoch: each phase's estimate as Decide reports it,
// and the work the map problem was solved on.
func TestEstimateCasesThroughDecide(t *testing.T) {
	req := epoch.Request{
		Epoch: 1, Slots: epoch.Slots{Map: 100, Reduce: 10}, Objective: "avg_stretch",
		Estimate: epoch.Estimate{Work: "extrapolate"},
		Jobs: []epoch.Job{
			// F1 (and F6: no total_work, so 40 s x 80 tasks for stretch).
			{ID: "f1", Map: &epoch.Phase{Max: 60, Tasks: 80, Pending: 50, Running: 10, AvgTaskTime: 40}},
			// F2's other jobs: 20 completed at 40 s, 10 at 70 s.
			{ID: "a", Map: &epoch.Phase{Max: 10, Tasks: 30, Pending: 5, Running: 5, AvgTaskTime: 40}},
			{ID: "b", Map: &epoch.Phase{Max: 5, Tasks: 15, Pending: 5, AvgTaskTime: 70}},
			// F2: no sample, cluster prior (20x40 + 10x70 + 20x40 of f1) / 50.
			{ID: "f2", Map: &epoch.Phase{Max: 80, Tasks: 80, Pending: 70, Running: 10}},
			// F3: the reduce phase has no sample anywhere: 60 s.
			{ID: "f3", Reduce: &epoch.Phase{Max: 10, Tasks: 80, Pending: 70, Running: 10, Started: true}},
		},
	}
	dec, _, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]epoch.JobEstimate{}
	for _, e := range dec.Estimates {
		byID[e.ID] = e
	}
	prior := (20*40.0 + 10*70.0 + 20*40.0) / 50
	for _, c := range []struct {
		id   string
		got  *estimate.Work
		want estimate.Work
	}{
		{"f1", byID["f1"].Map, estimate.Work{Work: 2400, TotalWork: 3200, TaskTime: 40, Source: estimate.Extrapolated, TasksLeft: 60}},
		{"f2", byID["f2"].Map, estimate.Work{Work: prior * 80, TotalWork: prior * 80, TaskTime: prior, Source: estimate.PriorCluster, TasksLeft: 80, MinRaised: true}},
		{"f3", byID["f3"].Reduce, estimate.Work{Work: 4800, TotalWork: 4800, TaskTime: 60, Source: estimate.Default, TasksLeft: 80, MinRaised: true}},
	} {
		if c.got == nil {
			t.Errorf("%s: no estimate", c.id)
			continue
		}
		if diff := cmp.Diff(c.want, *c.got, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.id, diff)
		}
	}
	// Every stage ran on the estimated work: the same request with that
	// work given (and the minima raised) decides the same.
	given := req
	given.Estimate = epoch.Estimate{}
	given.Jobs = []epoch.Job{
		{ID: "f1", Map: &epoch.Phase{Max: 60, Tasks: 80, Pending: 50, Running: 10, AvgTaskTime: 40, Work: 2400, TotalWork: 3200}},
		{ID: "a", Map: &epoch.Phase{Max: 10, Tasks: 30, Pending: 5, Running: 5, AvgTaskTime: 40, Work: 400, TotalWork: 1200}},
		{ID: "b", Map: &epoch.Phase{Max: 5, Tasks: 15, Pending: 5, AvgTaskTime: 70, Work: 350, TotalWork: 1050}},
		{ID: "f2", Map: &epoch.Phase{Min: 1, Max: 80, Tasks: 80, Pending: 70, Running: 10, Work: prior * 80, TotalWork: prior * 80}},
		{ID: "f3", Reduce: &epoch.Phase{Min: 1, Max: 10, Tasks: 80, Pending: 70, Running: 10, Started: true, Work: 4800, TotalWork: 4800}},
	}
	want, _, err := epoch.Decide(given, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.Phases, dec.Phases, cmpopts.EquateApprox(1e-12, 0)); diff != "" {
		t.Errorf("phases differ from the same work given (-given +estimated):\n%s", diff)
	}
	if diff := cmp.Diff(want.Allocations, dec.Allocations); diff != "" {
		t.Errorf("allocations differ from the same work given (-given +estimated):\n%s", diff)
	}
}
