package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// TestLawlerMooreIsTheFluidOptimum: lawlerMoore's set must be on time in
// the fluid model it solves (the cluster as one machine, jobs in deadline
// order, exact work), leave out the jobs that cannot meet their deadline,
// and be worth at least every subset that the program's own rounding
// (each job's work up to whole units) keeps on time: every subset, by
// enumeration, on instances small enough.
func TestLawlerMooreIsTheFluidOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		n := 2 + rng.IntN(11)
		m := penalty.WeightedTardyJobs
		if trial%4 == 0 {
			m = penalty.TardyJobs
		}
		in := fluidInstance(t, rng, n, m)
		due := in.reachableDue
		front := in.lawlerMoore(due)
		edd := sortedBy(n, due)
		total := 0.0
		for k := range n {
			total += in.work[k]
		}
		unit := total / float64(fluidUnitsFor(n))
		// fits reports whether set is on time in the fluid model, with
		// each job's work as work(k).
		fits := func(set []bool, work func(k int) float64) bool {
			done := 0.0
			for _, k := range edd {
				if !set[k] {
					continue
				}
				if !in.reachable(k, due(k)) {
					return false
				}
				done += work(k)
				if in.now+done/float64(in.slots) > due(k)*(1+1e-12) {
					return false
				}
			}
			return true
		}
		exact := func(k int) float64 { return in.work[k] }
		rounded := func(k int) float64 { return math.Ceil(in.work[k]/unit) * unit }
		if !fits(front, exact) {
			t.Fatalf("trial %d: the set %v is late in the fluid model", trial, front)
		}
		worth := func(set []bool) float64 {
			v := 0.0
			for k, on := range set {
				if on {
					v += in.stake(k)
				}
			}
			return v
		}
		got := worth(front)
		set := make([]bool, n)
		for mask := range 1 << n {
			for k := range n {
				set[k] = mask&(1<<k) != 0
			}
			if fits(set, rounded) && worth(set) > got*(1+1e-9)+1e-12 {
				t.Fatalf("trial %d: set %v is worth %g on time, lawlerMoore's %v only %g", trial, set, worth(set), front, got)
			}
		}
	}
}

// fluidInstance draws n jobs that may each take the whole cluster (so that
// the cluster's capacity, not a job's maximum, decides who is on time),
// with deadlines before the whole work is done.
func fluidInstance(t *testing.T, rng *rand.Rand, n int, m penalty.Metric) *instance {
	t.Helper()
	const slots = 10
	p := Problem{Slots: slots, Metric: m}
	total := 0.0
	for k := range n {
		w := 1 + rng.Float64()*20
		total += w
		p.Jobs = append(p.Jobs, Job{ID: fmt.Sprintf("j%03d", k), Min: 0, Max: slots, Work: w, Weight: rng.Float64()})
	}
	for k := range p.Jobs {
		p.Jobs[k].Deadline, p.Jobs[k].HasDeadline = rng.Float64()*total/slots, true
	}
	in, err := newInstance(p)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// TestPushesNeverWorsen: pushLate moves front jobs later only where they
// stay on time, so the split order it returns scores no worse than the one
// it was given and every job it moved is on time there; admitPushed returns
// an order whose full score is the score it reports, no worse than its
// start. Both must change something on these instances, or the test checks
// nothing.
func TestPushesNeverWorsen(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 13))
	pushed, admitted := 0, 0
	for i := range 16 {
		m := alternate(i, penalty.WeightedTardyJobs, penalty.TardyJobs)
		in := deadlineInstance(t, rng, 30+rng.IntN(60), m)
		ev := newEvaluator(in)
		n := len(in.jobs)
		due := sortedBy(n, in.reachableDue)
		back := sortedBy(n, func(k int) float64 { return -in.stake(k) })
		front := ev.onTimeSet(due)
		split := make([]int, n)
		buildSplit(split, front, due, back)
		s0 := ev.score(split)

		got, sGot, spent := ev.pushLate(front, nil, due, back, 5, 1_000_000)
		if !slices.Equal(slices.Sorted(slices.Values(got)), identity(n)) {
			t.Fatalf("instance %d: pushLate's %v is not a permutation", i, got)
		}
		if spent < 1 {
			t.Errorf("instance %d: pushLate spent %d evaluations", i, spent)
		}
		buildSplit(split, front, got, back)
		s1 := ev.score(split)
		if cmpTol(sGot.value, s1.value) != 0 {
			t.Errorf("instance %d: pushLate reported %v, its split order scores %v", i, sGot.value, s1.value)
		}
		if s0.less(s1) {
			t.Errorf("instance %d: pushLate took the split order from %v to %v", i, s0.value, s1.value)
		}
		if !slices.Equal(got, due) {
			pushed++
			for x, k := range got {
				if front[k] && x > slices.Index(due, k) && in.fn[k].At(ev.completions[k]) > 0 {
					t.Errorf("instance %d: job %d moved back to %d and is late there", i, k, x)
				}
			}
		}

		// From where the exchanges end, most late jobs do not pay to let
		// in: admitPushed must keep only what does.
		o, s, _ := ev.swapSearch(slices.Clone(front), due, back, 5000)
		from := scoredOrder{ordering{"swap", o}, s}
		best, _ := ev.admitPushed(from, back, 1_000_000)
		if full := ev.score(best.o.order); cmpTol(full.value, best.s.value) != 0 {
			t.Errorf("instance %d: admitPushed reported %v, full schedule scores %v", i, best.s.value, full.value)
		}
		if from.s.less(best.s) {
			t.Errorf("instance %d: admitPushed went from %v to %v", i, from.s.value, best.s.value)
		}
		if best.s.less(from.s) {
			admitted++
		}
	}
	t.Logf("pushed %d admitted %d", pushed, admitted)
	if pushed < 4 || admitted < 2 {
		t.Errorf("pushLate changed %d of 16 orders and admitPushed improved %d, want at least 4 and 2", pushed, admitted)
	}
}
