package epoch_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/epoch/epochtest"
	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// fields lists the wire paths of a validation answer, in its order.
func fields(fes []solver.FieldError) []string {
	var out []string
	for _, fe := range fes {
		out = append(out, fe.Field)
	}
	return out
}

// twoPhase is a valid job with work in both phases.
func twoPhase(id string) *epochtest.JobBuilder {
	return epochtest.Job(id).Map(1, 8, 3600).Reduce(0, 4, 600)
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		req  epoch.Request
		want []string
	}{
		"a valid two-phase request has no problems": {
			req: epochtest.Request(1).Jobs(twoPhase("a").Build(), twoPhase("b").Build()).Build(),
		},
		"an epoch without jobs is valid": {
			req: epochtest.Request(1).Build(),
		},
		"a job with nothing to do in either phase is valid": {
			req: epochtest.Request(1).Jobs(epochtest.Job("idle").Build()).Build(),
		},
		"a phase with zero work may have max 0": {
			req: epochtest.Request(1).Jobs(epochtest.Job("a").Map(0, 0, 0).Reduce(0, 4, 10).Build()).Build(),
		},
		"min above max is clamped, not an error": {
			req: epochtest.Request(1).Jobs(epochtest.Job("a").Map(9, 3, 100).Build()).Build(),
		},
		"an empty id": {
			req:  epochtest.Request(1).Jobs(twoPhase("").Build()).Build(),
			want: []string{"jobs[0].id"},
		},
		"a duplicate id is reported at the second job": {
			req:  epochtest.Request(1).Jobs(twoPhase("a").Build(), twoPhase("b").Build(), twoPhase("a").Build()).Build(),
			want: []string{"jobs[2].id"},
		},
		"a duplicate id among jobs in no phase": {
			req:  epochtest.Request(1).Jobs(epochtest.Job("a").Build(), epochtest.Job("a").Build()).Build(),
			want: []string{"jobs[1].id"},
		},
		"zero map slots": {
			req:  epochtest.Request(1).Slots(0, 5).Build(),
			want: []string{"slots.map"},
		},
		"reduce slots over the limit": {
			req:  epochtest.Request(1).Slots(5, solver.MaxSlots+1).Build(),
			want: []string{"slots.reduce"},
		},
		"negative map work": {
			req:  epochtest.Request(1).Jobs(epochtest.Job("a").Map(1, 8, -1).Build()).Build(),
			want: []string{"jobs[0].map.work"},
		},
		"NaN reduce work": {
			req:  epochtest.Request(1).Jobs(epochtest.Job("a").Reduce(1, 8, math.NaN()).Build()).Build(),
			want: []string{"jobs[0].reduce.work"},
		},
		"infinite map work": {
			req:  epochtest.Request(1).Jobs(epochtest.Job("a").Map(1, 8, math.Inf(1)).Build()).Build(),
			want: []string{"jobs[0].map.work"},
		},
		"max 0 in a phase with work": {
			req:  epochtest.Request(1).Jobs(epochtest.Job("a").Map(0, 0, 10).Build()).Build(),
			want: []string{"jobs[0].map.max"},
		},
		"negative min": {
			req:  epochtest.Request(1).Jobs(epochtest.Job("a").Reduce(-1, 4, 10).Build()).Build(),
			want: []string{"jobs[0].reduce.min"},
		},
		"negative total work": {
			req: epochtest.Request(1).Jobs(epochtest.Job("a").Map(1, 4, 10).
				MapPhase(func(p *epoch.Phase) { p.TotalWork = -5 }).Build()).Build(),
			want: []string{"jobs[0].map.total_work"},
		},
		"phase errors name the job's request index, not its phase-problem index": {
			req: epochtest.Request(1).Jobs(
				epochtest.Job("reduce-only").Reduce(0, 4, 10).Build(),
				epochtest.Job("map-only").Map(0, 4, 10).Build(),
				epochtest.Job("bad").Map(0, 0, 10).Reduce(-2, 4, 10).Build(),
			).Build(),
			want: []string{"jobs[2].map.max", "jobs[2].reduce.min"},
		},
		"negative task counts and statistics": {
			req: epochtest.Request(1).Jobs(epochtest.Job("a").Map(1, 4, 10).MapPhase(func(p *epoch.Phase) {
				p.Pending, p.Running, p.Tasks = -1, -1, -1
				p.AvgTaskTime, p.OutputBytesPerTask = math.Inf(1), -1
			}).Build()).Build(),
			want: []string{"jobs[0].map.pending", "jobs[0].map.running", "jobs[0].map.tasks",
				"jobs[0].map.avg_task_time", "jobs[0].map.output_bytes_per_task"},
		},
		"negative weight": {
			req:  epochtest.Request(1).Jobs(twoPhase("a").Weight(-1).Build()).Build(),
			want: []string{"jobs[0].weight"},
		},
		"infinite weight": {
			req:  epochtest.Request(1).Jobs(twoPhase("a").Weight(math.Inf(1)).Build()).Build(),
			want: []string{"jobs[0].weight"},
		},
		"zero weight is allowed": {
			req: epochtest.Request(1).Jobs(twoPhase("a").Weight(0).Build()).Build(),
		},
		"negative consumed slot-seconds": {
			req:  epochtest.Request(1).Jobs(twoPhase("a").Consumed(-3).Build()).Build(),
			want: []string{"jobs[0].consumed_slot_seconds"},
		},
		"a deadline metric needs a deadline on every job": {
			req: epochtest.Request(1).Objective(penalty.TardyJobs).Jobs(
				twoPhase("a").Deadline(100).Build(), twoPhase("b").Build(),
			).Build(),
			want: []string{"jobs[1].deadline"},
		},
		"a job's own deadline metric needs its deadline": {
			req:  epochtest.Request(1).Jobs(twoPhase("a").Objective(penalty.AvgTardiness).Build()).Build(),
			want: []string{"jobs[0].deadline"},
		},
		"SLA deadlines must increase": {
			req: epochtest.Request(1).Objective(penalty.SLACost).Jobs(
				twoPhase("a").SLA(10, 1).SLA(10, 2).Build(),
			).Build(),
			want: []string{"jobs[0].sla[1].deadline"},
		},
		"SLA penalties must not decrease": {
			req: epochtest.Request(1).Objective(penalty.SLACost).Jobs(
				twoPhase("a").SLA(10, 2).SLA(20, 1).Build(),
			).Build(),
			want: []string{"jobs[0].sla[1].penalty"},
		},
		"sla_cost needs SLA steps": {
			req:  epochtest.Request(1).Objective(penalty.SLACost).Jobs(twoPhase("a").Build()).Build(),
			want: []string{"jobs[0].sla"},
		},
		"a job's objective must share the aggregate": {
			req:  epochtest.Request(1).Jobs(twoPhase("a").Objective(penalty.Makespan).Build()).Build(),
			want: []string{"jobs[0].objective"},
		},
		"an unknown objective": {
			req:  epochtest.Request(1).Objective("fastest").Build(),
			want: []string{"objective"},
		},
		"a non-finite now": {
			req:  epochtest.Request(1).Now(math.NaN()).Build(),
			want: []string{"now"},
		},
		"a negative epoch length": {
			req:  epochtest.Request(1).EpochLength(-0.5).Build(),
			want: []string{"epoch_length"},
		},
		"negative released slots": {
			req:  epochtest.Request(1).ReleasedSlots(-1).Build(),
			want: []string{"released_slots"},
		},
		"an unknown policy": {
			req:  epochtest.Request(1).Policy("lottery").Build(),
			want: []string{"policy"},
		},
		"an unknown reduce policy override": {
			req:  epochtest.Request(1).PhasePolicy("fair", "lottery").Build(),
			want: []string{"phase_policy.reduce"},
		},
		"an unknown fair variant": {
			req:  epochtest.Request(1).FairVariant("yarn2").Build(),
			want: []string{"fair_variant"},
		},
		"optimal over more than 10 map jobs names the policy": {
			req:  epochtest.Request(1).Policy("optimal").Jobs(mapJobs(11)...).Build(),
			want: []string{"policy"},
		},
		"optimal as a map override over more than 10 map jobs names the override": {
			req:  epochtest.Request(1).PhasePolicy("optimal", "").Jobs(mapJobs(11)...).Build(),
			want: []string{"phase_policy.map"},
		},
		"fair over more than MaxFairJobs map jobs names the policy": {
			req:  epochtest.Request(1).Policy("fair").Jobs(mapJobs(solver.MaxFairJobs + 1)...).Build(),
			want: []string{"policy"},
		},
		"optimal for reduce ignores the map phase's size": {
			req: epochtest.Request(1).PhasePolicy("", "optimal").Jobs(mapJobs(11)...).Build(),
		},
		"an unknown ratio mode": {
			req:  epochtest.Request(1).RatioMode("dynamic").Build(),
			want: []string{"ratio.mode"},
		},
		"static ratio mode by name": {
			req: epochtest.Request(1).RatioMode(epoch.ModeStatic).Build(),
		},
		"borrowing percentages and thresholds outside [0, 1]": {
			req: epochtest.Request(1).Ratio(epoch.Ratio{
				BorrowMap: epochtest.Float(1.5), BorrowReduce: epochtest.Float(-0.1),
				Tau1: epochtest.Float(math.NaN()), Tau2: epochtest.Float(2),
			}).Build(),
			want: []string{"ratio.borrow_map", "ratio.borrow_reduce", "ratio.tau1", "ratio.tau2"},
		},
		"OMO's bandwidth and alpha out of range": {
			req:  epochtest.Request(1).OMO(epoch.OMO{Bandwidth: -1, EMAAlpha: 1.5}).Build(),
			want: []string{"omo.bandwidth", "omo.ema_alpha"},
		},
		"every problem at once, request-wide first, then by job": {
			req: epochtest.Request(1).Slots(0, 0).Policy("lottery").Jobs(
				twoPhase("a").Weight(-1).Build(),
				epochtest.Job("").Map(1, 0, 5).Build(),
				twoPhase("a").Reduce(0, 4, -1).Build(),
			).Build(),
			want: []string{"policy", "slots.map", "slots.reduce",
				"jobs[0].weight", "jobs[1].id", "jobs[1].map.max", "jobs[2].id", "jobs[2].reduce.work"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := epoch.Validate(tc.req, epoch.Limits{})
			if diff := cmp.Diff(tc.want, fields(got)); diff != "" {
				t.Errorf("Validate fields (-want +got):\n%s\nall: %v", diff, got)
			}
		})
	}
}

// mapJobs makes n valid jobs with work in the map phase only.
func mapJobs(n int) []epoch.Job {
	out := make([]epoch.Job, n)
	for i := range out {
		out[i] = epochtest.Job(fmt.Sprintf("j%03d", i)).Map(0, 4, 100).Build()
	}
	return out
}

// The ratio and OMO settings, and what the ratio stage needs of the jobs,
// are checked by package ratio at the request's wire paths; what both
// packages check is reported once.
func TestValidateRatio(t *testing.T) {
	job := func(id, pool string) epoch.Job { return twoPhase(id).Pool(pool).Build() }
	for name, tc := range map[string]struct {
		req  epoch.Request
		want []string
	}{
		"every mode is accepted": {
			req: epochtest.Request(1).RatioMode(epoch.ModePIDHSA).Jobs(job("a", "")).Build(),
		},
		"pd_dhsa with declared pools and weights": {
			req: epochtest.Request(1).RatioMode(epoch.ModePDDHSA).Pool("etl", 2).Pool("adhoc", 0).
				Jobs(job("a", "etl"), job("b", "adhoc")).Build(),
		},
		"OMO on FRESH with a bandwidth": {
			req: epochtest.Request(1).RatioMode(epoch.ModeFresh).
				OMO(epoch.OMO{LazyStart: true, BatchFinish: true, Bandwidth: 1e8}).Jobs(job("a", "")).Build(),
		},
		"OMO on a static split": {
			req:  epochtest.Request(1).OMO(epoch.OMO{BatchFinish: true}).Build(),
			want: []string{"omo"},
		},
		"lazy start without a bandwidth": {
			req:  epochtest.Request(1).RatioMode(epoch.ModePIDHSA).OMO(epoch.OMO{LazyStart: true}).Build(),
			want: []string{"omo.bandwidth"},
		},
		"a negative bandwidth is reported once": {
			req:  epochtest.Request(1).RatioMode(epoch.ModeFresh).OMO(epoch.OMO{BatchFinish: true, Bandwidth: -1}).Build(),
			want: []string{"omo.bandwidth"},
		},
		"explicit zero thresholds (absent ones are the defaults)": {
			req:  epochtest.Request(1).RatioMode(epoch.ModeFresh).Taus(0, 0).Build(),
			want: []string{"ratio.tau1", "ratio.tau2"},
		},
		"a borrowing percentage above 1 is reported once": {
			req:  epochtest.Request(1).RatioMode(epoch.ModePIDHSA).Borrow(1.5, 0).Build(),
			want: []string{"ratio.borrow_map"},
		},
		"a negative reduce-slot weight": {
			req:  epochtest.Request(1).RatioMode(epoch.ModePIDHSA).ReduceSlotWeight(-2).Build(),
			want: []string{"ratio.reduce_slot_weight"},
		},
		"pool declarations: empty, duplicate, bad weight": {
			req: epochtest.Request(1).RatioMode(epoch.ModePDDHSA).
				Pool("", 1).Pool("etl", 1).Pool("etl", math.Inf(1)).Build(),
			want: []string{"ratio.pools[0].name", "ratio.pools[2].name", "ratio.pools[2].weight"},
		},
		"a job in an undeclared pool, or in the undeclared default pool": {
			req: epochtest.Request(1).RatioMode(epoch.ModePDDHSA).Pool("etl", 1).
				Jobs(job("a", "etl"), job("b", "adhoc"), job("c", "")).Build(),
			want: []string{"jobs[1].pool", "jobs[2].pool"},
		},
		"more pending and running tasks than tasks": {
			req: epochtest.Request(1).Jobs(
				job("a", ""), twoPhase("b").MapTasks(5, 3).Tasks(7, 0).Build(),
			).Build(),
			want: []string{"jobs[1].map.tasks"},
		},
		"shared slots over the limit": {
			req:  epochtest.Request(1).RatioMode(epoch.ModeFresh).Slots(solver.MaxSlots, 1).Build(),
			want: []string{"slots"},
		},
		"static slots may each reach the limit": {
			req: epochtest.Request(1).Slots(solver.MaxSlots, solver.MaxSlots).Build(),
		},
		"ratio's problems sort with the others: request-wide first, then by job": {
			req: epochtest.Request(1).RatioMode(epoch.ModePDDHSA).Pool("etl", 1).Policy("lottery").Jobs(
				job("a", "adhoc"), twoPhase("b").Weight(-1).Pool("etl").Build(),
			).OMO(epoch.OMO{LazyStart: true}).Build(),
			want: []string{"policy", "omo.bandwidth", "jobs[0].pool", "jobs[1].weight"},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := epoch.Validate(tc.req, epoch.Limits{})
			if diff := cmp.Diff(tc.want, fields(got)); diff != "" {
				t.Errorf("Validate fields (-want +got):\n%s\nall: %v", diff, got)
			}
		})
	}
}

func TestValidateLimits(t *testing.T) {
	// Every job is broken, so any per-job check that ran would show.
	broken := func(n int) []epoch.Job {
		out := make([]epoch.Job, n)
		for i := range out {
			out[i] = epochtest.Job("").Map(-1, 0, -1).Weight(-1).Build()
		}
		return out
	}
	for name, tc := range map[string]struct {
		req    epoch.Request
		limits epoch.Limits
		want   []solver.FieldError
	}{
		"100001 jobs are refused before any per-job check": {
			req: epochtest.Request(1).Jobs(broken(solver.MaxJobs + 1)...).Build(),
			want: []solver.FieldError{
				{Field: "jobs", Message: "must hold at most 100000 jobs, got 100001"},
			},
		},
		"request-wide problems are still listed beside the job count": {
			req:    epochtest.Request(1).Slots(0, 1).Jobs(broken(4)...).Build(),
			limits: epoch.Limits{MaxJobs: 3},
			want: []solver.FieldError{
				{Field: "slots.map", Message: "must be at least 1, got 0"},
				{Field: "jobs", Message: "must hold at most 3 jobs, got 4"},
			},
		},
		"a configured slot limit": {
			req:    epochtest.Request(1).Slots(64, 65).Build(),
			limits: epoch.Limits{MaxSlots: 64},
			want: []solver.FieldError{
				{Field: "slots.reduce", Message: "must be at most 64, got 65"},
			},
		},
		"a limit above the solver's is lowered to it": {
			req:    epochtest.Request(1).Slots(solver.MaxSlots+1, 1).Build(),
			limits: epoch.Limits{MaxSlots: 2 * solver.MaxSlots},
			want: []solver.FieldError{
				{Field: "slots.map", Message: fmt.Sprintf("must be at most %d, got %d", solver.MaxSlots, solver.MaxSlots+1)},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			got := epoch.Validate(tc.req, tc.limits)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Validate (-want +got):\n%s", diff)
			}
		})
	}
}
