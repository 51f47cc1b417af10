package epoch_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/epoch/epochtest"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

func TestNormalize(t *testing.T) {
	// phase builds the expected PhaseProblem of a default-policy request.
	phase := func(name string, slots int, index []int, jobs ...solver.Job) epoch.PhaseProblem {
		return epoch.PhaseProblem{
			Phase: name, Policy: "flex", PolicyField: "policy",
			Problem: solver.Problem{Slots: slots, Jobs: jobs}, Index: index,
		}
	}
	for name, tc := range map[string]struct {
		req                 epoch.Request
		wantMap, wantReduce epoch.PhaseProblem
	}{
		"no jobs: two empty problems on the static slots": {
			req:        epochtest.Request(1).Slots(100, 50).Build(),
			wantMap:    phase("map", 100, nil),
			wantReduce: phase("reduce", 50, nil),
		},
		"a job takes part in a phase only when it is present with positive work": {
			req: epochtest.Request(1).Slots(100, 50).Jobs(
				epochtest.Job("absent-map").Reduce(0, 4, 60).Build(),
				epochtest.Job("zero-work-reduce").Map(1, 8, 360).Reduce(1, 4, 0).Build(),
				epochtest.Job("both").Map(2, 9, 10).Reduce(3, 5, 20).Build(),
				epochtest.Job("neither").Build(),
			).Build(),
			wantMap: phase("map", 100, []int{1, 2},
				solver.Job{ID: "zero-work-reduce", Min: 1, Max: 8, Work: 360, Weight: 1},
				solver.Job{ID: "both", Min: 2, Max: 9, Work: 10, Weight: 1},
			),
			wantReduce: phase("reduce", 50, []int{0, 2},
				solver.Job{ID: "absent-map", Max: 4, Work: 60, Weight: 1},
				solver.Job{ID: "both", Min: 3, Max: 5, Work: 20, Weight: 1},
			),
		},
		"demand is pending plus running, so the solver clamps max to it": {
			req: epochtest.Request(1).Jobs(
				epochtest.Job("tail").Map(1, 40, 1200).MapTasks(3, 2).Build(),
				epochtest.Job("unknown").Map(1, 40, 1200).Build(),
			).Build(),
			wantMap: phase("map", 10, []int{0, 1},
				solver.Job{ID: "tail", Min: 1, Max: 40, Demand: 5, Work: 1200, Weight: 1},
				solver.Job{ID: "unknown", Min: 1, Max: 40, Work: 1200, Weight: 1},
			),
			wantReduce: phase("reduce", 10, nil),
		},
		"weight defaults to 1 when absent and stays 0 when given as 0": {
			req: epochtest.Request(1).Jobs(
				epochtest.Job("absent").Map(0, 4, 1).Build(),
				epochtest.Job("zero").Weight(0).Map(0, 4, 1).Build(),
				epochtest.Job("heavy").Weight(2.5).Map(0, 4, 1).Build(),
			).Build(),
			wantMap: phase("map", 10, []int{0, 1, 2},
				solver.Job{ID: "absent", Max: 4, Work: 1, Weight: 1},
				solver.Job{ID: "zero", Max: 4, Work: 1, Weight: 0},
				solver.Job{ID: "heavy", Max: 4, Work: 1, Weight: 2.5},
			),
			wantReduce: phase("reduce", 10, nil),
		},
		"job-level fields reach every phase, total work stays per phase": {
			req: epochtest.Request(1).Now(500).Objective(penalty.SLACost).Jobs(
				epochtest.Job("sla").Submitted(400).Deadline(900).SLA(600, 1).SLA(700, 3).
					Objective(penalty.WeightedTardyJobs).
					Map(1, 4, 40).MapPhase(func(p *epoch.Phase) { p.TotalWork = 100 }).
					Reduce(0, 2, 10).Build(),
			).Build(),
			wantMap: epoch.PhaseProblem{
				Phase: "map", Policy: "flex", PolicyField: "policy", Index: []int{0},
				Problem: solver.Problem{Slots: 10, Now: 500, Metric: penalty.SLACost, Jobs: []solver.Job{{
					ID: "sla", Min: 1, Max: 4, Work: 40, TotalWork: 100, Submitted: 400, Weight: 1,
					Deadline: 900, HasDeadline: true, Metric: penalty.WeightedTardyJobs,
					SLA: []penalty.Step{{Deadline: 600, Penalty: 1}, {Deadline: 700, Penalty: 3}},
				}}},
			},
			wantReduce: epoch.PhaseProblem{
				Phase: "reduce", Policy: "flex", PolicyField: "policy", Index: []int{0},
				Problem: solver.Problem{Slots: 10, Now: 500, Metric: penalty.SLACost, Jobs: []solver.Job{{
					ID: "sla", Max: 2, Work: 10, Submitted: 400, Weight: 1,
					Deadline: 900, HasDeadline: true, Metric: penalty.WeightedTardyJobs,
					SLA: []penalty.Step{{Deadline: 600, Penalty: 1}, {Deadline: 700, Penalty: 3}},
				}}},
			},
		},
		"a phase override wins over the request's policy, and the fair variant reaches both": {
			req: epochtest.Request(1).Policy("fifo").PhasePolicy("", "fair").FairVariant("yarn").Build(),
			wantMap: epoch.PhaseProblem{
				Phase: "map", Policy: "fifo", PolicyField: "policy",
				Problem: solver.Problem{Slots: 10, Options: solver.Options{FairVariant: "yarn"}},
			},
			wantReduce: epoch.PhaseProblem{
				Phase: "reduce", Policy: "fair", PolicyField: "phase_policy.reduce",
				Problem: solver.Problem{Slots: 10, Options: solver.Options{FairVariant: "yarn"}},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			gotMap, gotReduce := epoch.Normalize(tc.req)
			if diff := cmp.Diff(tc.wantMap, gotMap); diff != "" {
				t.Errorf("map problem (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantReduce, gotReduce); diff != "" {
				t.Errorf("reduce problem (-want +got):\n%s", diff)
			}
		})
	}
}
