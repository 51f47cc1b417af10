package solver

import (
	"fmt"
	"math"
	"math/rand/v2"
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
