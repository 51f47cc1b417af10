package epoch_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/epoch/epochtest"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// call is what a fake policy was asked to solve.
type call struct {
	Policy, FairVariant string
	Slots               int
	IDs                 []string
}

// fakePolicies is a registry of fake policies that record their calls. By
// default each policy fills jobs greedily in problem order: a job gets
// min(max, demand when given, slots left), with reason "demand", "max" or
// "partial"; answer, when set, replaces that.
type fakePolicies struct {
	calls  []call
	answer func(p solver.Problem) (solver.Result, error)
}

func (f *fakePolicies) lookup(name string) (solver.Solver, bool) {
	if _, ok := solver.ByName(name); !ok {
		return nil, false
	}
	return fakePolicy{name, f}, true
}

type fakePolicy struct {
	name string
	f    *fakePolicies
}

func (p fakePolicy) Name() string { return p.name }

func (p fakePolicy) Solve(pr solver.Problem) (solver.Result, error) {
	c := call{Policy: p.name, FairVariant: pr.Options.FairVariant, Slots: pr.Slots}
	for _, j := range pr.Jobs {
		c.IDs = append(c.IDs, j.ID)
	}
	p.f.calls = append(p.f.calls, c)
	if p.f.answer != nil {
		return p.f.answer(pr)
	}
	res := solver.Result{Policy: p.name}
	left := pr.Slots
	for _, j := range pr.Jobs {
		capped, reason := j.Max, solver.ReasonMax
		if j.Demand > 0 && j.Demand < capped {
			capped, reason = j.Demand, solver.ReasonDemand
		}
		s := min(capped, left)
		if s < capped {
			reason = solver.ReasonPartial
		}
		left -= s
		res.Allocations = append(res.Allocations, solver.Allocation{ID: j.ID, Slots: s, Reason: reason})
	}
	return res, nil
}

// fakeResult is what the fake answers by default, for expectations.
func fakeResult(policy string, allocs ...solver.Allocation) *solver.Result {
	return &solver.Result{Policy: policy, Allocations: allocs}
}

func alloc(id string, slots int, reason solver.Reason) solver.Allocation {
	return solver.Allocation{ID: id, Slots: slots, Reason: reason}
}

// staticWhy is the ratio stage's explanation of a static split.
func staticWhy(mapSlots, reduceSlots int) []string {
	return []string{fmt.Sprintf("static: map %d, reduce %d as configured", mapSlots, reduceSlots)}
}

func TestDecide(t *testing.T) {
	for name, tc := range map[string]struct {
		req       epoch.Request
		want      epoch.Decision
		wantCalls []call
	}{
		"each phase runs its own policy on its static budget; allocations keep request order": {
			req: epochtest.Request(42).Slots(100, 50).Policy("fifo").PhasePolicy("", "fair").FairVariant("yarn").Jobs(
				epochtest.Job("reduce-only").Reduce(0, 30, 60).Build(),
				epochtest.Job("map-only").Map(0, 50, 5).Build(),
				epochtest.Job("both").Map(0, 70, 10).Reduce(0, 40, 20).Build(),
			).Build(),
			want: epoch.Decision{
				Epoch:   42,
				Budgets: epoch.Budgets{Mode: "static", Map: 100, Reduce: 50},
				Why:     staticWhy(100, 50),
				Phases: epoch.Phases{
					Map:    fakeResult("fifo", alloc("map-only", 50, solver.ReasonMax), alloc("both", 50, solver.ReasonPartial)),
					Reduce: fakeResult("fair", alloc("reduce-only", 30, solver.ReasonMax), alloc("both", 20, solver.ReasonPartial)),
				},
				Allocations: []epoch.JobAllocation{
					{ID: "reduce-only", Map: 0, MapReason: epoch.ReasonNone, Reduce: 30, ReduceReason: solver.ReasonMax},
					{ID: "map-only", Map: 50, MapReason: solver.ReasonMax, Reduce: 0, ReduceReason: epoch.ReasonNone},
					{ID: "both", Map: 50, MapReason: solver.ReasonPartial, Reduce: 20, ReduceReason: solver.ReasonPartial},
				},
			},
			wantCalls: []call{
				{Policy: "fifo", FairVariant: "yarn", Slots: 100, IDs: []string{"map-only", "both"}},
				{Policy: "fair", FairVariant: "yarn", Slots: 50, IDs: []string{"reduce-only", "both"}},
			},
		},
		"a phase without jobs gets an empty result and its policy is not called": {
			req: epochtest.Request(7).Objective(penalty.MaxResponseTime).Jobs(
				epochtest.Job("mapper").Map(1, 4, 100).Reduce(1, 4, 0).Build(),
			).Build(),
			want: epoch.Decision{
				Epoch:   7,
				Budgets: epoch.Budgets{Mode: "static", Map: 10, Reduce: 10},
				Why:     staticWhy(10, 10),
				Phases: epoch.Phases{
					Map:    fakeResult("flex", alloc("mapper", 4, solver.ReasonMax)),
					Reduce: &solver.Result{Policy: "flex", Metric: penalty.MaxResponseTime, Aggregate: penalty.Max},
				},
				Allocations: []epoch.JobAllocation{
					{ID: "mapper", Map: 4, MapReason: solver.ReasonMax, ReduceReason: epoch.ReasonNone},
				},
			},
			wantCalls: []call{{Policy: "flex", Slots: 10, IDs: []string{"mapper"}}},
		},
		"an epoch without jobs decides nothing and calls no policy": {
			req: epochtest.Request(3).Build(),
			want: epoch.Decision{
				Epoch:   3,
				Budgets: epoch.Budgets{Mode: "static", Map: 10, Reduce: 10},
				Why:     staticWhy(10, 10),
				Phases: epoch.Phases{
					Map:    &solver.Result{Policy: "flex", Metric: penalty.AvgResponseTime, Aggregate: penalty.Sum},
					Reduce: &solver.Result{Policy: "flex", Metric: penalty.AvgResponseTime, Aggregate: penalty.Sum},
				},
				Allocations: []epoch.JobAllocation{},
			},
		},
		"the demand clamp's reason reaches the job's allocation": {
			req: epochtest.Request(5).Jobs(
				epochtest.Job("tail").Map(0, 8, 30).MapTasks(2, 1).Build(),
			).Build(),
			want: epoch.Decision{
				Epoch:   5,
				Budgets: epoch.Budgets{Mode: "static", Map: 10, Reduce: 10},
				Why:     staticWhy(10, 10),
				Phases: epoch.Phases{
					Map:    fakeResult("flex", alloc("tail", 3, solver.ReasonDemand)),
					Reduce: &solver.Result{Policy: "flex", Metric: penalty.AvgResponseTime, Aggregate: penalty.Sum},
				},
				Allocations: []epoch.JobAllocation{
					{ID: "tail", Map: 3, MapReason: solver.ReasonDemand, ReduceReason: epoch.ReasonNone},
				},
			},
			wantCalls: []call{{Policy: "flex", Slots: 10, IDs: []string{"tail"}}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakePolicies{}
			got, _, err := epoch.Decider{Lookup: f.lookup}.Decide(tc.req, epoch.ClusterState{})
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("decision (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, f.calls); diff != "" {
				t.Errorf("policy calls (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecideState(t *testing.T) {
	prev := epoch.ClusterState{LastEpoch: 41, OMO: &epoch.OMOState{ReleaseRate: 1.5, AvailableSlots: 7}}
	f := &fakePolicies{}
	_, next, err := epoch.Decider{Lookup: f.lookup}.Decide(epochtest.Request(42).Build(), prev)
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	want := epoch.ClusterState{LastEpoch: 42, OMO: &epoch.OMOState{ReleaseRate: 1.5, AvailableSlots: 7}}
	if diff := cmp.Diff(want, next); diff != "" {
		t.Errorf("next state (-want +got):\n%s", diff)
	}
}

func TestDecideErrors(t *testing.T) {
	errBoom := errors.New("boom")
	// Three jobs; the reduce problem holds jobs 1 and 2 of the request.
	threeJobs := epochtest.Request(9).Jobs(
		epochtest.Job("a").Map(0, 4, 10).Build(),
		epochtest.Job("b").Reduce(0, 4, 10).Build(),
		epochtest.Job("c").Map(0, 4, 10).Reduce(0, 4, 10).Build(),
	).PhasePolicy("", "fair")
	onReduce := func(answer func(p solver.Problem) (solver.Result, error)) func(solver.Problem) (solver.Result, error) {
		return func(p solver.Problem) (solver.Result, error) {
			if p.Jobs[0].ID == "b" {
				return answer(p)
			}
			return (fakePolicy{"flex", &fakePolicies{}}).Solve(p)
		}
	}
	for name, tc := range map[string]struct {
		req    epoch.Request
		answer func(p solver.Problem) (solver.Result, error)
		// wantFields, when set, says the error is a *solver.ValidationError
		// with these fields; otherwise wantIs, when set, must match it.
		wantFields []string
		wantIs     error
	}{
		"an invalid request is refused with Validate's problems, before any policy runs": {
			req:        epochtest.Request(1).Slots(0, 1).Jobs(epochtest.Job("").Map(0, 1, 1).Build()).Build(),
			answer:     func(solver.Problem) (solver.Result, error) { panic("policy called") },
			wantFields: []string{"slots.map", "jobs[0].id"},
		},
		"a policy's validation error comes back at the request's paths": {
			req: threeJobs.Build(),
			answer: onReduce(func(solver.Problem) (solver.Result, error) {
				return solver.Result{}, &solver.ValidationError{Problems: []solver.FieldError{
					{Field: "jobs[1].deadline"}, {Field: "jobs[0].max"}, {Field: "jobs[1].demand"},
					{Field: "slots"}, {Field: "jobs"}, {Field: "objective"},
				}}
			}),
			wantFields: []string{"jobs[2].deadline", "jobs[1].reduce.max", "jobs[2].reduce.pending",
				"slots.reduce", "phase_policy.reduce", "objective"},
		},
		"a policy's failure is returned as it is, not as a validation error": {
			req:    threeJobs.Build(),
			answer: onReduce(func(solver.Problem) (solver.Result, error) { return solver.Result{}, errBoom }),
			wantIs: errBoom,
		},
		"a policy answering for too few jobs is an error, not a panic": {
			req: threeJobs.Build(),
			answer: onReduce(func(solver.Problem) (solver.Result, error) {
				return solver.Result{Allocations: []solver.Allocation{{ID: "b", Slots: 1}}}, nil
			}),
		},
		"a policy answering out of order is an error": {
			req: threeJobs.Build(),
			answer: onReduce(func(solver.Problem) (solver.Result, error) {
				return solver.Result{Allocations: []solver.Allocation{{ID: "c", Slots: 1}, {ID: "b", Slots: 1}}}, nil
			}),
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakePolicies{answer: tc.answer}
			prev := epoch.ClusterState{LastEpoch: 8}
			_, next, err := epoch.Decider{Lookup: f.lookup}.Decide(tc.req, prev)
			if err == nil {
				t.Fatal("Decide succeeded, want an error")
			}
			var ve *solver.ValidationError
			isValidation := errors.As(err, &ve)
			switch {
			case tc.wantFields != nil && !isValidation:
				t.Errorf("error %v is not a *solver.ValidationError", err)
			case tc.wantFields != nil:
				if diff := cmp.Diff(tc.wantFields, fields(ve.Problems)); diff != "" {
					t.Errorf("fields (-want +got):\n%s", diff)
				}
			case isValidation:
				t.Errorf("error %v is a validation error; a policy's failure is not the caller's fault", err)
			case tc.wantIs != nil && !errors.Is(err, tc.wantIs):
				t.Errorf("error %v does not wrap %v", err, tc.wantIs)
			}
			if diff := cmp.Diff(prev, next); diff != "" {
				t.Errorf("state after an error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecideUnknownPolicyInLookup(t *testing.T) {
	// A Decider whose registry lacks a policy solver.ByName knows refuses
	// the request at the policy's field rather than failing.
	lookup := func(name string) (solver.Solver, bool) { return nil, false }
	req := epochtest.Request(1).PhasePolicy("fair", "").Build()
	_, _, err := epoch.Decider{Lookup: lookup}.Decide(req, epoch.ClusterState{})
	var ve *solver.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("Decide error = %v, want a *solver.ValidationError", err)
	}
	if diff := cmp.Diff([]string{"phase_policy.map"}, fields(ve.Problems)); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

func TestFairness(t *testing.T) {
	third := 1.0 / 3
	for name, tc := range map[string]struct {
		jobs []epoch.Job
		want *float64
	}{
		"no job carries consumed slot-seconds: no index": {
			jobs: []epoch.Job{epochtest.Job("a").Build(), epochtest.Job("b").Build()},
		},
		"equal rates are perfectly fair": {
			jobs: []epoch.Job{
				epochtest.Job("old").Submitted(0).Consumed(100).Build(),
				epochtest.Job("young").Submitted(50).Consumed(50).Build(),
			},
			want: epochtest.Float(1),
		},
		"one job holding everything scores 1/n": {
			jobs: []epoch.Job{
				epochtest.Job("hog").Consumed(300).Build(),
				epochtest.Job("starved1").Consumed(0).Build(),
				epochtest.Job("starved2").Consumed(0).Build(),
			},
			want: &third,
		},
		"rates 2 and 1 score 9/10": {
			jobs: []epoch.Job{
				epochtest.Job("a").Consumed(200).Build(),
				epochtest.Job("b").Consumed(100).Build(),
			},
			want: epochtest.Float(0.9),
		},
		"jobs without a positive time in the system or without data are left out": {
			jobs: []epoch.Job{
				epochtest.Job("a").Consumed(200).Build(),
				epochtest.Job("just-arrived").Submitted(100).Consumed(0).Build(),
				epochtest.Job("untracked").Build(),
			},
			want: epochtest.Float(1),
		},
		"all rates zero: the index is undefined": {
			jobs: []epoch.Job{epochtest.Job("a").Consumed(0).Build(), epochtest.Job("b").Consumed(0).Build()},
		},
	} {
		t.Run(name, func(t *testing.T) {
			req := epochtest.Request(1).Now(100).Jobs(tc.jobs...).Build()
			f := &fakePolicies{}
			got, _, err := epoch.Decider{Lookup: f.lookup}.Decide(req, epoch.ClusterState{})
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tc.want, got.Fairness); diff != "" {
				t.Errorf("fairness (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideWithFlex runs the production "flex" policy end to end. It fails
// until the policy is implemented (solver's stub returns an error).
func TestDecideWithFlex(t *testing.T) {
	req := epochtest.Request(12).Now(1000).Slots(20, 6).Jobs(
		epochtest.Job("big").Submitted(900).Map(2, 20, 4000).MapTasks(30, 10).Reduce(1, 4, 800).Build(),
		epochtest.Job("small").Submitted(990).Map(1, 8, 200).Build(),
		epochtest.Job("reducing").Submitted(500).Reduce(1, 6, 300).ReduceTasks(2, 1).Build(),
	).Build()
	got, _, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatalf("Decide with the real flex policy: %v", err)
	}
	sums := map[string]int{}
	for _, a := range got.Allocations {
		sums["map"] += a.Map
		sums["reduce"] += a.Reduce
		if a.MapReason == "" || a.ReduceReason == "" {
			t.Errorf("allocation %+v lacks a reason", a)
		}
	}
	// No slack left behind: every slot is used while demand remains.
	if diff := cmp.Diff(map[string]int{"map": 20, "reduce": 6}, sums); diff != "" {
		t.Errorf("slots used per phase (-want +got):\n%s", diff)
	}
	if a := got.Allocations[2]; a.Reduce > 3 {
		t.Errorf("reducing's reduce allocation %+v breaks its demand of 3", a)
	}
}

// TestDecideChecked: Check returns a valid request as Checked and an
// invalid one's problems; DecideChecked decides a Checked exactly as
// Decide decides the request, and refuses the zero Checked rather than
// decide what nobody validated.
func TestDecideChecked(t *testing.T) {
	req := epochtest.Request(3).Jobs(
		epochtest.Job("a").Map(0, 4, 10).Build(),
		epochtest.Job("b").Map(1, 8, 30).Reduce(0, 4, 10).Build(),
	).Build()
	c, fes := epoch.Check(req, epoch.Limits{})
	if fes != nil {
		t.Fatalf("Check: %v", fes)
	}
	want, wantNext, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	got, gotNext, err := epoch.Decider{}.DecideChecked(c, epoch.ClusterState{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DecideChecked differs from Decide (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantNext, gotNext); diff != "" {
		t.Errorf("next state differs (-want +got):\n%s", diff)
	}

	if _, fes := epoch.Check(req, epoch.Limits{MaxJobs: 1}); len(fes) != 1 || fes[0].Field != "jobs" {
		t.Errorf("Check with MaxJobs 1 on 2 jobs: %v, want one problem at jobs", fes)
	}
	prev := epoch.ClusterState{LastEpoch: 2}
	if _, next, err := (epoch.Decider{}).DecideChecked(epoch.Checked{}, prev); err == nil || next != prev {
		t.Errorf("DecideChecked on the zero Checked: error %v, state %+v; want an error and the previous state", err, next)
	}
}
