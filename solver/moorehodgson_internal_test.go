package solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// TestMooreHodgsonPassGivesUpTheLongJob: one machine in effect (every job
// may take all ten slots), a long job L on time first and three short jobs
// due soon after it late behind it. Moore-Hodgson's rule has a join the
// on-time set, which then gives up L (the most work), and b and c fit: one
// tardy job. Giving up the job that joined instead (a, then c) leaves two.
func TestMooreHodgsonPassGivesUpTheLongJob(t *testing.T) {
	for _, m := range []penalty.Metric{penalty.TardyJobs, penalty.WeightedTardyJobs} {
		p := Problem{Slots: 10, Metric: m, Jobs: []Job{
			{ID: "L", Max: 10, Work: 30, Weight: 1, Deadline: 3, HasDeadline: true},
			{ID: "a", Max: 10, Work: 10, Weight: 1, Deadline: 3.5, HasDeadline: true},
			{ID: "b", Max: 10, Work: 10, Weight: 1, Deadline: 4, HasDeadline: true},
			{ID: "c", Max: 10, Work: 10, Weight: 1, Deadline: 4.5, HasDeadline: true},
		}}
		in, err := newInstance(p)
		if err != nil {
			t.Fatal(err)
		}
		ev := newEvaluator(in)
		start := []int{0, 1, 2, 3}
		s0 := ev.score(start)
		if cmpTol(s0.value, 3) != 0 {
			t.Fatalf("%s: the start scores %v, want 3 (a, b and c late)", m, s0.value)
		}
		got := ev.mooreHodgsonPass(scoredOrder{ordering{"start", start}, s0}, 100, in.reachableDue)
		if cmpTol(got.s.value, 1) != 0 || got.o.scheme != "start+mh" || !slices.Equal(got.o.order, []int{1, 2, 3, 0}) {
			t.Errorf("%s: %s %v %v, want start+mh [1 2 3 0] 1 (L late)", m, got.o.scheme, got.o.order, got.s.value)
		}
	}
}

// TestMooreHodgsonPassScoresWhatItReturns: on random instances the pass
// answers a permutation, scored as a full schedule scores it, never worse
// than its start, better on some.
func TestMooreHodgsonPassScoresWhatItReturns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 13))
	better := 0
	for i := range 20 {
		in := deadlineInstance(t, rng, 20+rng.IntN(60), alternate(i, penalty.TardyJobs, penalty.WeightedTardyJobs))
		ev := newEvaluator(in)
		n := len(in.jobs)
		start := sortedBy(n, func(k int) float64 { return -in.work[k] })
		s0 := ev.score(start)
		got := ev.mooreHodgsonPass(scoredOrder{ordering{"start", start}, s0}, 1000, in.reachableDue, in.jitDue)
		if !slices.Equal(slices.Sorted(slices.Values(got.o.order)), identity(n)) {
			t.Fatalf("instance %d: %v is not a permutation", i, got.o.order)
		}
		if full := ev.score(got.o.order); full != got.s {
			t.Errorf("instance %d: reported %v, a full schedule scores %v", i, got.s, full)
		}
		if s0.less(got.s) {
			t.Errorf("instance %d: %v from a start of %v", i, got.s.value, s0.value)
		}
		if got.s.less(s0) {
			better++
		}
		// A budget bounds the jobs that join: each may cost up to n
		// schedules of repair once it has.
		for _, budget := range []int{0, 1, 12} {
			e0 := ev.evaluations
			got := ev.mooreHodgsonPass(scoredOrder{ordering{"start", start}, s0}, budget, in.reachableDue, in.jitDue)
			if spent := ev.evaluations - e0; spent > budget+n || budget < 2 && (spent > 0 || got.o.scheme != "start") {
				t.Errorf("instance %d, budget %d: %d schedules, answer %s", i, budget, spent, got.o.scheme)
			}
		}
	}
	// From the most work first, the rule has something to give up on
	// most instances; a pass that did nothing would pass the rest.
	if better < 10 {
		t.Errorf("better than the start on %d of 20 instances, want at least 10", better)
	}
}
