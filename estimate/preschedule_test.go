package estimate_test

import (
	"reflect"
	"testing"

	"github.com/flexd/flexd/estimate"
)

// p1Input is case P1 (section 6.4, Appendix D's picture): four nodes of 4
// map and 2 reduce slots; J2 runs 6 maps (TT1 1, TT2 3, TT4 2), nothing
// pending; J1 has 2 maps pending, local on TT2 and TT4, allocated 2.
func p1Input() estimate.AdviceInput {
	node := func(id string, running int) estimate.Node {
		return estimate.Node{ID: id, MapSlots: 4, ReduceSlots: 2, RunningMap: running}
	}
	return estimate.AdviceInput{
		Nodes: []estimate.Node{node("TT1", 1), node("TT2", 3), node("TT3", 0), node("TT4", 2)},
		Jobs: []estimate.JobStatus{
			{ID: "J2", Submitted: 0, Map: &estimate.PhaseCounts{Tasks: 6, Running: 6, Allocated: 6}},
			{ID: "J1", Submitted: 1, Map: &estimate.PhaseCounts{Tasks: 2, Pending: 2, Allocated: 2,
				LocalPending: map[string]int{"TT2": 1, "TT4": 1}}},
		},
	}
}

// TestPrescheduleP1: load factor 0.5, two usable slots a node; TT2 and TT4
// have no allowable idle slot but extra ones, so J1 runs a local map on
// each (Case 1).
func TestPrescheduleP1(t *testing.T) {
	got := estimate.PrescheduleConfig{Enabled: true, MaxBorrowedReduceSlots: 100000}.Schedule(p1Input())
	if got.LoadFactor.Map != 0.5 {
		t.Errorf("map load factor %v, want 0.5", got.LoadFactor.Map)
	}
	wantNodes := map[string][2]int{"TT1": {1, 2}, "TT2": {0, 1}, "TT3": {2, 2}, "TT4": {0, 2}}
	for _, n := range got.Nodes {
		if w := wantNodes[n.Node]; n.AllowableIdleMap != w[0] || n.ExtraIdleMap != w[1] {
			t.Errorf("%s: allowable %d, extra %d, want %v", n.Node, n.AllowableIdleMap, n.ExtraIdleMap, w)
		}
	}
	want := []estimate.PreAssign{
		{Job: "J1", Node: "TT2", Slot: "map", Case: estimate.CaseExtraIdleMap},
		{Job: "J1", Node: "TT4", Slot: "map", Case: estimate.CaseExtraIdleMap},
	}
	if !reflect.DeepEqual(got.Assign, want) {
		t.Errorf("assign %+v, want %+v", got.Assign, want)
	}
}

// p2Input is case P2: two nodes of 4 map and 2 reduce slots, J2 running 8
// maps (4 on each), J1 with 3 maps pending (2 local on TT1), deficit 3.
func p2Input() estimate.AdviceInput {
	return estimate.AdviceInput{
		Nodes: []estimate.Node{{ID: "TT1", MapSlots: 4, ReduceSlots: 2, RunningMap: 4}, {ID: "TT2", MapSlots: 4, ReduceSlots: 2, RunningMap: 4}},
		Jobs: []estimate.JobStatus{
			{ID: "J2", Map: &estimate.PhaseCounts{Tasks: 8, Running: 8, Allocated: 8}},
			{ID: "J1", Submitted: 1, Map: &estimate.PhaseCounts{Tasks: 3, Pending: 3, Allocated: 3, LocalPending: map[string]int{"TT1": 2}}},
		},
	}
}

// TestPrescheduleP2: with DHSA, Case 2 puts J1's two local maps on TT1's
// idle reduce slots; the borrowing bound and a static split stop it.
func TestPrescheduleP2(t *testing.T) {
	two := estimate.PreAssign{Job: "J1", Node: "TT1", Slot: "reduce", Case: estimate.CaseIdleReduce}
	for name, tc := range map[string]struct {
		cfg  estimate.PrescheduleConfig
		want []estimate.PreAssign
	}{
		"pi_dhsa":           {estimate.PrescheduleConfig{Enabled: true, MaxBorrowedReduceSlots: 100000, DHSA: true}, []estimate.PreAssign{two, two}},
		"borrowing bound 1": {estimate.PrescheduleConfig{Enabled: true, MaxBorrowedReduceSlots: 1, DHSA: true}, []estimate.PreAssign{two}},
		"static":            {estimate.PrescheduleConfig{Enabled: true, MaxBorrowedReduceSlots: 100000}, []estimate.PreAssign{}},
	} {
		got := tc.cfg.Schedule(p2Input())
		if !reflect.DeepEqual(got.Assign, tc.want) {
			t.Errorf("%s: assign %+v, want %+v", name, got.Assign, tc.want)
		}
	}
}

// TestPrescheduleP3: with a map task on a reduce slot of TT1, TT2's idle
// map slot (its reduce slots busy) runs J3's pending reduce task.
func TestPrescheduleP3(t *testing.T) {
	in := estimate.AdviceInput{
		Nodes: []estimate.Node{
			{ID: "TT1", MapSlots: 4, ReduceSlots: 2, RunningMap: 4, MapOnReduce: 1, RunningReduce: 1},
			{ID: "TT2", MapSlots: 4, ReduceSlots: 2, RunningMap: 3, RunningReduce: 2},
		},
		Jobs: []estimate.JobStatus{
			{ID: "J2", Map: &estimate.PhaseCounts{Tasks: 8, Running: 8, Allocated: 8}},
			{ID: "J3", Submitted: 1, Reduce: &estimate.PhaseCounts{Tasks: 4, Pending: 1, Running: 3, Allocated: 4}},
		},
	}
	got := estimate.PrescheduleConfig{Enabled: true, MaxBorrowedReduceSlots: 100000, DHSA: true}.Schedule(in)
	if want := []estimate.PreRestore{{Job: "J3", Node: "TT2"}}; !reflect.DeepEqual(got.ReduceOnMap, want) {
		t.Errorf("reduce_on_map %+v, want %+v", got.ReduceOnMap, want)
	}
}
