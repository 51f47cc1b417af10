package epoch_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/epoch/epochtest"
	"github.com/flexd/flexd/ratio"
	"github.com/flexd/flexd/solver"
)

// threeJobs is a cluster of 12 map and 8 reduce slots with two pools: etl
// holds a big job in both phases and a job in its reduce phase, adhoc a
// small job in both phases.
func threeJobs(mode string) *epochtest.RequestBuilder {
	return epochtest.Request(1).Now(100).EpochLength(10).ReleasedSlots(6).Slots(12, 8).RatioMode(mode).Jobs(
		epochtest.Job("etl-big").Pool("etl").Map(1, 30, 3000).MapTasks(25, 5).Tasks(40, 6).
			Reduce(0, 6, 600).ReduceTasks(6, 0).Build(),
		epochtest.Job("adhoc-small").Pool("adhoc").Submitted(10).Map(0, 4, 80).MapTasks(3, 1).Tasks(4, 2).
			Reduce(0, 2, 100).ReduceTasks(2, 0).Build(),
		epochtest.Job("etl-reducing").Pool("etl").Submitted(5).Reduce(1, 8, 900).ReduceTasks(4, 4).Tasks(10, 8).
			ReduceStarted().Build(),
	)
}

// TestDecideModes runs every ratio mode end to end with the production
// "flex" policy: the budgets are ratio's (checked by hand here, and against
// ratio.Budgets on the same input), each phase's allocations stay within
// its budget (and, in pd_dhsa, each pool's within the pool's), and the
// allocations keep the request's order.
func TestDecideModes(t *testing.T) {
	for name, tc := range map[string]struct {
		req  epoch.Request
		want epoch.Budgets
	}{
		"static keeps the configured split": {
			req:  threeJobs(epoch.ModeStatic).Build(),
			want: epoch.Budgets{Mode: "static", Map: 12, Reduce: 8},
		},
		"pi_dhsa: both phases over-loaded, no borrowing": {
			req:  threeJobs(epoch.ModePIDHSA).Build(),
			want: epoch.Budgets{Mode: "pi_dhsa", Map: 12, Reduce: 8},
		},
		"pi_dhsa: the over-loaded map phase borrows all unused reduce slots by default": {
			req: epochtest.Request(1).Slots(10, 10).RatioMode(epoch.ModePIDHSA).Jobs(
				epochtest.Job("mapper").Map(0, 30, 900).MapTasks(25, 5).Build(),
				epochtest.Job("reducer").Reduce(0, 4, 60).ReduceTasks(1, 1).Build(),
			).Build(),
			want: epoch.Budgets{Mode: "pi_dhsa", Map: 18, Reduce: 2, Borrowed: epoch.Borrowed{ReduceToMap: 8}},
		},
		"pi_dhsa: borrowing half the unused reduce slots": {
			req: epochtest.Request(1).Slots(10, 10).RatioMode(epoch.ModePIDHSA).Borrow(1, 0.5).Jobs(
				epochtest.Job("mapper").Map(0, 30, 900).MapTasks(25, 5).Build(),
				epochtest.Job("reducer").Reduce(0, 4, 60).ReduceTasks(1, 1).Build(),
			).Build(),
			want: epoch.Budgets{Mode: "pi_dhsa", Map: 14, Reduce: 6, Borrowed: epoch.Borrowed{ReduceToMap: 4}},
		},
		"pi_dhsa: a phase without task counts demands its jobs' max": {
			req: epochtest.Request(1).Slots(10, 10).RatioMode(epoch.ModePIDHSA).Jobs(
				epochtest.Job("mapper").Map(0, 16, 900).Build(),
				epochtest.Job("reducer").Reduce(0, 3, 60).Build(),
			).Build(),
			want: epoch.Budgets{Mode: "pi_dhsa", Map: 16, Reduce: 4, Borrowed: epoch.Borrowed{ReduceToMap: 6}},
		},
		"pd_dhsa: adhoc's unused shares go to etl in the same phase": {
			req: threeJobs(epoch.ModePDDHSA).Build(),
			want: epoch.Budgets{Mode: "pd_dhsa", Map: 12, Reduce: 8, Pools: map[string]epoch.PoolBudget{
				"adhoc": {Map: 4, Reduce: 2}, "etl": {Map: 8, Reduce: 6},
			}},
		},
		"pd_dhsa: a pool lends its unused map share to its own reduce phase": {
			req: epochtest.Request(1).Slots(10, 10).RatioMode(epoch.ModePDDHSA).Jobs(
				epochtest.Job("a-map").Pool("a").Map(0, 10, 100).MapTasks(2, 0).Build(),
				epochtest.Job("a-red").Pool("a").Reduce(0, 10, 100).ReduceTasks(9, 0).Build(),
				epochtest.Job("b-both").Pool("b").Map(0, 10, 100).MapTasks(5, 0).Reduce(0, 10, 100).ReduceTasks(5, 0).Build(),
			).Build(),
			want: epoch.Budgets{Mode: "pd_dhsa", Map: 7, Reduce: 13, Borrowed: epoch.Borrowed{MapToReduce: 3},
				Pools: map[string]epoch.PoolBudget{"a": {Map: 2, Reduce: 8}, "b": {Map: 5, Reduce: 5}}},
		},
		"fresh: theta is the remaining map work's share, RW_m=3080, RW_r=900": {
			req: threeJobs(epoch.ModeFresh).Build(),
			want: epoch.Budgets{Mode: "fresh", Map: 15, Reduce: 5, Borrowed: epoch.Borrowed{ReduceToMap: 3},
				Theta: 3080.0 / 3980},
		},
	} {
		t.Run(name, func(t *testing.T) {
			dec, _, err := epoch.Decide(tc.req, epoch.ClusterState{})
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tc.want, dec.Budgets, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
				t.Errorf("budgets (-want +got):\n%s", diff)
			}
			rr, _ := ratio.Budgets(epoch.RatioConfig(tc.req), epoch.RatioInput(tc.req), ratio.State{})
			if dec.Budgets.Map != rr.Map || dec.Budgets.Reduce != rr.Reduce || len(dec.Budgets.Pools) != len(rr.Pools) {
				t.Errorf("budgets %+v are not ratio's %+v", dec.Budgets, rr)
			}
			if diff := cmp.Diff(rr.Why, dec.Why); diff != "" {
				t.Errorf("why (-ratio +decision):\n%s", diff)
			}
			checkAllocations(t, tc.req, dec)
		})
	}
}

// checkAllocations checks what holds for every decision: one allocation
// per job in request order, each with a reason, each phase within its
// budget, each phase result listing the phase's jobs in request order,
// and in pd_dhsa each pool within its budgets and the merged phases
// holding exactly the pools' allocations.
func checkAllocations(t *testing.T, req epoch.Request, dec epoch.Decision) {
	t.Helper()
	var ids []string
	sum := map[string]int{}
	for i, a := range dec.Allocations {
		ids = append(ids, a.ID)
		sum["map"] += a.Map
		sum["reduce"] += a.Reduce
		if a.MapReason == "" || a.ReduceReason == "" {
			t.Errorf("allocation %d %+v lacks a reason", i, a)
		}
	}
	var want []string
	for _, j := range req.Jobs {
		want = append(want, j.ID)
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("allocation order (-request +decision):\n%s", diff)
	}
	if sum["map"] > dec.Budgets.Map || sum["reduce"] > dec.Budgets.Reduce {
		t.Errorf("allocated %v over budgets map %d, reduce %d", sum, dec.Budgets.Map, dec.Budgets.Reduce)
	}
	pos := map[string]int{}
	for i, j := range req.Jobs {
		pos[j.ID] = i
	}
	inOrder := func(what string, r *solver.Result) {
		if r == nil {
			t.Errorf("%s: nil result", what)
			return
		}
		if !slices.IsSortedFunc(r.Allocations, func(a, b solver.Allocation) int { return pos[a.ID] - pos[b.ID] }) {
			t.Errorf("%s: allocations %v not in request order", what, r.Allocations)
		}
	}
	inOrder("map phase", dec.Phases.Map)
	inOrder("reduce phase", dec.Phases.Reduce)
	if dec.Budgets.Mode != epoch.ModePDDHSA {
		if dec.PoolPhases != nil {
			t.Errorf("PoolPhases %v outside pd_dhsa", dec.PoolPhases)
		}
		return
	}
	merged := map[string][]solver.Allocation{}
	for name, ph := range dec.PoolPhases {
		inOrder(name+" map", ph.Map)
		inOrder(name+" reduce", ph.Reduce)
		pb := dec.Budgets.Pools[name]
		for _, x := range []struct {
			phase  string
			res    *solver.Result
			budget int
		}{{"map", ph.Map, pb.Map}, {"reduce", ph.Reduce, pb.Reduce}} {
			used := 0
			for _, a := range x.res.Allocations {
				used += a.Slots
				if a.ID == "" || req.Jobs[pos[a.ID]].Pool != name && !(name == ratio.DefaultPool && req.Jobs[pos[a.ID]].Pool == "") {
					t.Errorf("pool %s %s holds job %q of another pool", name, x.phase, a.ID)
				}
			}
			if used > x.budget {
				t.Errorf("pool %s %s: %d slots over its budget %d", name, x.phase, used, x.budget)
			}
			merged[x.phase] = append(merged[x.phase], x.res.Allocations...)
		}
	}
	for phase, r := range map[string]*solver.Result{"map": dec.Phases.Map, "reduce": dec.Phases.Reduce} {
		got := slices.Clone(r.Allocations)
		byID := func(a, b solver.Allocation) int { return pos[a.ID] - pos[b.ID] }
		slices.SortFunc(merged[phase], byID)
		if diff := cmp.Diff(merged[phase], got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("merged %s phase is not the pools' allocations (-pools +merged):\n%s", phase, diff)
		}
	}
}

// slotsAt is the dense slot vector of a plan at time x (zero outside it).
func slotsAt(pl solver.Plan, x float64) []int {
	out := make([]int, len(pl.Completions))
	pl.Each(func(_ int, start, end float64, slots []int) {
		if start <= x && x < end {
			copy(out, slots)
		}
	})
	return out
}

// The merged plan of a pd_dhsa phase holds, at every time, each job's
// slots in its pool's plan, and each job's completion.
func TestDecideMergedPlan(t *testing.T) {
	req := epochtest.Request(1).Now(100).Slots(12, 8).RatioMode(epoch.ModePDDHSA).Jobs(
		epochtest.Job("a1").Pool("a").Map(1, 6, 300).Build(),
		epochtest.Job("b1").Pool("b").Map(1, 6, 50).Build(),
		epochtest.Job("a2").Pool("a").Submitted(3).Map(0, 6, 40).Build(),
		epochtest.Job("b2").Pool("b").Submitted(4).Map(0, 6, 500).Reduce(1, 8, 80).Build(),
	).Build()
	dec, _, err := epoch.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	checkAllocations(t, req, dec)
	merged := dec.Phases.Map
	if merged.Scheme != epoch.SchemePerPool || len(merged.Plan.Intervals) == 0 {
		t.Fatalf("merged map phase %+v: want scheme %q and a plan", merged, epoch.SchemePerPool)
	}
	at := map[string]int{}
	for k, a := range merged.Allocations {
		at[a.ID] = k
	}
	var times []float64
	wantValue := 0.0
	for _, name := range []string{"a", "b"} {
		r := dec.PoolPhases[name].Map
		wantValue += r.Value
		r.Plan.Each(func(_ int, start, end float64, _ []int) { times = append(times, start, (start+end)/2) })
		for x, a := range r.Allocations {
			if got, want := merged.Plan.Completions[at[a.ID]], r.Plan.Completions[x]; got != want {
				t.Errorf("%s completes at %v in the merged plan, %v in pool %s's", a.ID, got, want, name)
			}
		}
	}
	if merged.Value != wantValue {
		t.Errorf("merged value %v, want the pools' sum %v", merged.Value, wantValue)
	}
	for _, x := range times {
		got := slotsAt(merged.Plan, x)
		for _, name := range []string{"a", "b"} {
			r := dec.PoolPhases[name].Map
			pool := slotsAt(r.Plan, x)
			for k, a := range r.Allocations {
				if got[at[a.ID]] != pool[k] {
					t.Errorf("at %v job %s holds %d slots in the merged plan, %d in pool %s's", x, a.ID, got[at[a.ID]], pool[k], name)
				}
			}
		}
	}
}

// A phase (or pool phase) with jobs and a budget of 0 calls no policy
// (a problem with 0 slots is invalid): its jobs get 0 slots, ReasonNoBudget.
func TestDecideZeroBudget(t *testing.T) {
	for name, tc := range map[string]struct {
		req       epoch.Request
		want      []epoch.JobAllocation
		wantCalls []call
	}{
		"fresh: a reduce phase not started is outside RW_r, so theta is 1": {
			req: epochtest.Request(1).Slots(3, 3).RatioMode(epoch.ModeFresh).Jobs(
				epochtest.Job("m").Map(0, 10, 100).MapTasks(10, 0).Reduce(0, 4, 50).ReduceTasks(4, 0).Build(),
			).Build(),
			want: []epoch.JobAllocation{
				{ID: "m", Map: 6, MapReason: solver.ReasonPartial, ReduceReason: epoch.ReasonNoBudget},
			},
			wantCalls: []call{{Policy: "flex", Slots: 6, IDs: []string{"m"}}},
		},
		"pd_dhsa: one slot per phase, two pools; pool b's share is 0": {
			req: epochtest.Request(1).Slots(1, 1).RatioMode(epoch.ModePDDHSA).Jobs(
				epochtest.Job("a1").Pool("a").Map(0, 5, 10).MapTasks(5, 0).Reduce(0, 5, 10).ReduceTasks(5, 0).Build(),
				epochtest.Job("b1").Pool("b").Map(0, 5, 10).MapTasks(5, 0).Reduce(0, 5, 10).ReduceTasks(5, 0).Build(),
			).Build(),
			want: []epoch.JobAllocation{
				{ID: "a1", Map: 1, MapReason: solver.ReasonPartial, Reduce: 1, ReduceReason: solver.ReasonPartial},
				{ID: "b1", MapReason: epoch.ReasonNoBudget, ReduceReason: epoch.ReasonNoBudget},
			},
			wantCalls: []call{
				{Policy: "flex", Slots: 1, IDs: []string{"a1"}},
				{Policy: "flex", Slots: 1, IDs: []string{"a1"}},
			},
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := &fakePolicies{}
			dec, _, err := epoch.Decider{Lookup: f.lookup}.Decide(tc.req, epoch.ClusterState{})
			if err != nil {
				t.Fatalf("Decide: %v", err)
			}
			if diff := cmp.Diff(tc.want, dec.Allocations); diff != "" {
				t.Errorf("allocations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, f.calls); diff != "" {
				t.Errorf("policy calls (-want +got):\n%s", diff)
			}
			for _, r := range []*solver.Result{dec.Phases.Map, dec.Phases.Reduce} {
				if len(r.Plan.Intervals) != 0 {
					t.Errorf("a phase with an unplanned job has a merged plan: %+v", r.Plan)
				}
			}
		})
	}
}

// omoCluster is a pi_dhsa cluster of 10+10 slots with OMO on: "lazy" has
// 50 pending map tasks and a reduce phase not started (its shuffle of
// 60 MB over 4 reducers at 100 MB/s takes 0.15 s, far less than its map
// tail: held); "batch" has started its reduce phase and 3 pending map tasks
// (t_fair - t_batch = 8 - 56/22 > 0 with F_o=2, A_o=7, K=2: batch finish).
func omoCluster(released int) *epochtest.RequestBuilder {
	return epochtest.Request(1).Now(100).EpochLength(10).ReleasedSlots(released).Slots(10, 10).
		RatioMode(epoch.ModePIDHSA).OMO(epoch.OMO{LazyStart: true, BatchFinish: true, Bandwidth: 1e8}).Jobs(
		epochtest.Job("lazy").Map(0, 40, 600).MapTasks(50, 5).Tasks(60, 4).MapStats(10, 1e6).
			Reduce(0, 4, 400).ReduceTasks(4, 0).Build(),
		epochtest.Job("batch").Submitted(1).Map(0, 10, 25).MapTasks(3, 2).Tasks(20, 4).MapStats(5, 1e6).
			Reduce(0, 4, 300).ReduceTasks(2, 2).ReduceStarted().Build(),
	)
}

func TestDecideOMO(t *testing.T) {
	var mins map[string]int
	f := &fakePolicies{}
	f.answer = func(p solver.Problem) (solver.Result, error) {
		if len(f.calls) == 1 { // the map problem comes first
			for _, j := range p.Jobs {
				mins[j.ID] = j.Min
			}
		}
		g := *f
		g.answer = nil
		return fakePolicy{"flex", &g}.Solve(p)
	}
	d := epoch.Decider{Lookup: f.lookup}

	mins = map[string]int{}
	dec, state1, err := d.Decide(omoCluster(20).Build(), epoch.ClusterState{})
	if err != nil {
		t.Fatalf("first Decide: %v", err)
	}
	wantOMO := &epoch.OMODecision{BatchFinish: "batch", ReleaseRate: 2, AvailableSlots: 7}
	if diff := cmp.Diff(wantOMO, dec.OMO); diff != "" {
		t.Errorf("OMO decision (-want +got):\n%s", diff)
	}
	// Map demand 60 (lazy's held reduce demand is 0): the map phase borrows
	// 6 of the reduce phase's 10 slots, leaving batch's demand of 4.
	if diff := cmp.Diff(epoch.Budgets{Mode: "pi_dhsa", Map: 16, Reduce: 4, Borrowed: epoch.Borrowed{ReduceToMap: 6}}, dec.Budgets); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
	if got := dec.Allocations[0]; got.Reduce != 0 || got.ReduceReason != epoch.ReasonHeld {
		t.Errorf("lazy's allocation %+v: want 0 reduce slots, held", got)
	}
	if diff := cmp.Diff([]call{
		{Policy: "flex", Slots: 16, IDs: []string{"lazy", "batch"}},
		{Policy: "flex", Slots: 4, IDs: []string{"batch"}},
	}, f.calls); diff != "" {
		t.Errorf("policy calls (-want +got):\n%s", diff)
	}
	if mins["batch"] != 5 || mins["lazy"] != 0 {
		t.Errorf("map minima %v: want batch raised to its map demand (3 pending + 2 running), lazy's 0 kept", mins)
	}
	want1 := epoch.ClusterState{LastEpoch: 1, OMO: &epoch.OMOState{ReleaseRate: 2, AvailableSlots: 7, Windows: 1}}
	if diff := cmp.Diff(want1, state1); diff != "" {
		t.Errorf("state after epoch 1 (-want +got):\n%s", diff)
	}

	// Epoch 2 releases 40 slots in 10 s: F_o = 0.3*4 + 0.7*2.
	req2 := omoCluster(40).Build()
	req2.Epoch = 2
	dec2, state2, err := d.Decide(req2, state1)
	if err != nil {
		t.Fatalf("second Decide: %v", err)
	}
	want2 := epoch.ClusterState{LastEpoch: 2, OMO: &epoch.OMOState{ReleaseRate: 2.6, AvailableSlots: 7, Windows: 2}}
	if diff := cmp.Diff(want2, state2, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("state after epoch 2 (-want +got):\n%s", diff)
	}
	if dec2.OMO == nil || dec2.OMO.ReleaseRate != state2.OMO.ReleaseRate {
		t.Errorf("epoch 2's OMO decision %+v does not report the new average", dec2.OMO)
	}

	// With OMO off the state passes through untouched.
	req3 := omoCluster(0).OMO(epoch.OMO{}).Build()
	req3.Epoch = 3
	dec3, state3, err := d.Decide(req3, state2)
	if err != nil {
		t.Fatalf("third Decide: %v", err)
	}
	want3 := epoch.ClusterState{LastEpoch: 3, OMO: state2.OMO}
	if diff := cmp.Diff(want3, state3); diff != "" || dec3.OMO != nil {
		t.Errorf("state with OMO off (-want +got):\n%s\nOMO decision %+v", diff, dec3.OMO)
	}
	if state3.OMO == state2.OMO {
		t.Error("the next state shares its OMO averages with the previous one")
	}
}

// Lazy start starts a job's reduce phase once its map phase is over, and
// the job then takes part in the reduce problem.
func TestDecideOMOStartsReduce(t *testing.T) {
	req := omoCluster(20).Jobs(
		epochtest.Job("mapped").Submitted(2).Reduce(0, 4, 300).ReduceTasks(3, 0).Tasks(10, 3).MapStats(5, 1e6).Build(),
	).Build()
	f := &fakePolicies{}
	dec, _, err := epoch.Decider{Lookup: f.lookup}.Decide(req, epoch.ClusterState{})
	if err != nil {
		t.Fatalf("Decide: %v", err)
	}
	if dec.OMO == nil || !slices.Equal(dec.OMO.StartReduce, []string{"mapped"}) {
		t.Errorf("OMO decision %+v: want mapped to start its reduce phase", dec.OMO)
	}
	if got := dec.Allocations[2]; got.Reduce == 0 || got.ReduceReason == epoch.ReasonHeld {
		t.Errorf("mapped's allocation %+v: want reduce slots", got)
	}
	if got := dec.Allocations[0]; got.ReduceReason != epoch.ReasonHeld {
		t.Errorf("lazy's allocation %+v: want held", got)
	}
	checkAllocations(t, req, dec)
}
