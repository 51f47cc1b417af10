package estimate_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/flexd/flexd/estimate"
)

// b1Input is case B1 (section 5.4): map budget 20, 17 attempts running,
// so 3 slots idle; five runnable jobs in fair-share order J5, J1, J2, J3,
// J4 (deficits 4, 2, 1, 0, -1) with 0, 2, 0, 1 and 0 maps pending; J5's
// attempt a has run 95 s at progress 0.2 (its maps average 40 s): YARN's
// speculator wants a backup of it.
func b1Input() estimate.AdviceInput {
	now := 1000.0
	in := estimate.AdviceInput{Now: now, MapBudget: 20, ReduceBudget: 1}
	type spec struct {
		id                          string
		pending, running, allocated int
		avg                         float64
	}
	for i, j := range []spec{{"J5", 0, 2, 6, 40}, {"J1", 2, 5, 7, 0}, {"J2", 0, 4, 5, 0}, {"J3", 1, 3, 3, 0}, {"J4", 0, 3, 2, 0}} {
		in.Jobs = append(in.Jobs, estimate.JobStatus{ID: j.id, Submitted: float64(i),
			Map: &estimate.PhaseCounts{Tasks: 10, Pending: j.pending, Running: j.running, Allocated: j.allocated, AvgTaskTime: j.avg}})
		for k := range j.running {
			start, pg := now-10, 0.5
			if j.id == "J5" && k == 0 {
				start, pg = now-95, 0.2
			}
			in.Tasks = append(in.Tasks, estimate.Attempt{Attempt: fmt.Sprintf("%s-%d", j.id, k), Task: fmt.Sprintf("t%s-%d", j.id, k),
				Job: j.id, Phase: estimate.MapPhase, Node: "n1", Start: start, Progress: fp(pg)})
		}
	}
	return in
}

// TestSEPBB1AndB2 is cases B1 and B2: with jobs_checked 0 and 0.4 the
// backup is launched; with 0.8 and 1 it is deferred for J1's and J3's
// pending maps, and then the kill heuristic kills the attempt (95 s > 2 x
// 40 s), which it never does to an attempt it backs up.
func TestSEPBB1AndB2(t *testing.T) {
	for _, tc := range []struct {
		checked float64
		launch  bool
	}{{0, true}, {0.4, true}, {0.8, false}, {1, false}} {
		cfg := estimate.DefaultSpeculationConfig()
		cfg.Detector = estimate.YARNDefault
		cfg.SEPB.Enabled, cfg.SEPB.JobsChecked = true, tc.checked
		adv, _ := estimate.Advise(b1Input(), cfg, estimate.State{})
		if adv.IdleSlots.Map != 3 {
			t.Fatalf("idle map slots %d, want 3", adv.IdleSlots.Map)
		}
		launched := len(adv.Speculate) == 1 && adv.Speculate[0].Attempt == "J5-0"
		if launched != tc.launch {
			t.Errorf("jobs_checked %v: speculate %+v, want launched %v", tc.checked, adv.Speculate, tc.launch)
		}
		if !tc.launch {
			if len(adv.Deferred) != 1 || adv.Deferred[0].Reason != estimate.ReasonPendingTasks ||
				!slices.Equal(adv.Deferred[0].PendingJobs, []string{"J1", "J3"}) {
				t.Errorf("jobs_checked %v: deferred %+v, want J5-0 for J1 and J3", tc.checked, adv.Deferred)
			}
			if len(adv.Kill) != 1 || adv.Kill[0].Attempt != "J5-0" || adv.Kill[0].Reason != estimate.ReasonTwiceMean ||
				adv.Kill[0].Elapsed != 95 || adv.Kill[0].Mean != 40 {
				t.Errorf("jobs_checked %v: kill %+v, want J5-0 (95 s against a mean of 40)", tc.checked, adv.Kill)
			}
		} else if len(adv.Kill) != 0 {
			t.Errorf("jobs_checked %v: killed %+v, an attempt being backed up (D-B6)", tc.checked, adv.Kill)
		}
	}
	// kill_factor 0 switches the heuristic off; no idle slot defers with
	// no_idle_slot.
	cfg := estimate.DefaultSpeculationConfig()
	cfg.Detector = estimate.YARNDefault
	cfg.SEPB.Enabled, cfg.SEPB.KillFactor = true, 0
	in := b1Input()
	in.MapBudget = 17
	adv, _ := estimate.Advise(in, cfg, estimate.State{})
	if len(adv.Kill) != 0 || len(adv.Deferred) != 1 || adv.Deferred[0].Reason != estimate.ReasonNoIdleSlot {
		t.Errorf("no idle slot, kill off: deferred %+v, kill %+v", adv.Deferred, adv.Kill)
	}
}

// TestSEPBKillSparesNearlyDone is D-B10: the kill heuristic spares an
// attempt past twice its job's mean whose own time to end is at most the
// mean, since its rerun would start from nothing. J5-0 has run 95 s
// against a mean of 40: at progress 0.2 it has 380 s to go and is killed
// (case B2); at 0.75, 31.7 s, and it is left to finish; at 0.7, 40.7 s,
// killed again.
func TestSEPBKillSparesNearlyDone(t *testing.T) {
	cfg := estimate.DefaultSpeculationConfig()
	cfg.Detector = estimate.YARNDefault
	cfg.SEPB.Enabled, cfg.SEPB.JobsChecked = true, 1
	for _, tc := range []struct {
		progress float64
		kill     bool
	}{{0.2, true}, {0.75, false}, {0.7, true}} {
		in := b1Input()
		for i := range in.Tasks {
			if in.Tasks[i].Attempt == "J5-0" {
				in.Tasks[i].Progress = fp(tc.progress)
			}
		}
		adv, _ := estimate.Advise(in, cfg, estimate.State{})
		killed := len(adv.Kill) == 1 && adv.Kill[0].Attempt == "J5-0"
		if killed != tc.kill || len(adv.Kill) > 1 {
			t.Errorf("progress %v: kill %+v, want J5-0 killed %v", tc.progress, adv.Kill, tc.kill)
		}
	}
}
