package solver

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// TestMayGain checks window search's rule for skipping moves on sums of
// deadline penalties: a job moves earlier only if the incumbent finishes it
// late or within the margin of its deadline, and later only if a job it
// lets by is. Every job holds one slot throughout, so each finishes at
// 10 s whatever the order; past the first five, jobs due at 100 s make the
// problem one for the search at scale.
func TestMayGain(t *testing.T) {
	n := maxExhaustiveSearchJobs + 1
	p := Problem{Slots: n, Metric: penalty.WeightedTardiness}
	for k := range n {
		d := 100.0
		if k < 5 {
			d = []float64{100, 5, 100, 100, 15}[k]
		}
		p.Jobs = append(p.Jobs, Job{ID: fmt.Sprintf("j%02d", k), Min: 1, Max: 1, Work: 10, Weight: 1, Deadline: d, HasDeadline: true})
	}
	in, err := newInstance(p)
	if err != nil {
		t.Fatal(err)
	}
	ev := newEvaluator(in)
	if ev.margin == 0 || in.jobs[4].Deadline != 15 {
		t.Fatalf("%d jobs: not the search at scale, or jobs not in ID order", n)
	}
	order := make([]int, n) // j1 late; j4 on time, 5 s before its deadline
	for k := range order {
		order[k] = k
	}
	cases := []struct {
		i, k int
		want bool
	}{
		{1, 0, true},  // j1, late, earlier
		{2, 0, false}, // j2, on time, earlier
		{4, 2, false}, // j4, on time, earlier
		{0, 2, true},  // j0 later, past j1
		{0, 5, true},  // j0 later, past j1 to j4
		{2, 4, false}, // j2 later, past j3 only
		{2, 5, false}, // j2 later, past j3 and j4
	}
	check := func(label string, flip map[[2]int]bool) {
		t.Helper()
		for _, c := range cases {
			want := c.want != flip[[2]int{c.i, c.k}]
			if got := ev.mayGain(order, c.i, c.k); got != want {
				t.Errorf("%s: moving position %d to before %d: mayGain %v, want %v", label, c.i, c.k, got, want)
			}
		}
	}
	ev.setBase(order)
	check("default margin", nil)
	// With a margin of half the time to each deadline, j4 (due at 15,
	// done at 10, anticipated from 7.5) counts as late too.
	ev.margin = 0.5
	ev.setBase(order)
	check("margin 0.5", map[[2]int]bool{{4, 2}: true, {2, 5}: true})
}

// TestIterateWalks checks that the walks of the search at scale are each
// the walk iterate makes alone from the same order with its own kicks, and
// that iterateWalks answers the best of them, the first among equals; on
// some instance the second walk must be the better, or it buys nothing.
func TestIterateWalks(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	secondWon := 0
	for i := range 8 {
		m := []penalty.Metric{penalty.AvgTardiness, penalty.WeightedTardiness}[i%2]
		in := deadlineInstance(t, rng, 30+rng.IntN(40), m)
		ev := newEvaluator(in)
		start := sortedBy(len(in.jobs), in.reachableDue)
		best := scoredOrder{ordering{"edd", start}, ev.score(start)}
		const budget = 300
		got := ev.iterateWalks(best, budget)
		var alone [walks]scoredOrder
		want := best
		for x := range walks {
			e := newEvaluator(in)
			alone[x] = e.iterate(best, budget, searchWindow, searchWindow, rand.New(rand.NewPCG(uint64(len(start)), 0x6b1c+uint64(x))))
			if alone[x].s.less(want.s) {
				want = alone[x]
			}
		}
		if !slices.Equal(got.o.order, want.o.order) || got.s != want.s {
			t.Errorf("instance %d (%s, %d jobs): iterateWalks %v, best walk alone %v", i, m, len(start), got.s, want.s)
		}
		if alone[1].s.less(alone[0].s) {
			secondWon++
		}
	}
	if secondWon == 0 {
		t.Error("the second walk never beat the first")
	}
}

// TestDueSearches checks that where the search at scale is two searches
// at once, each is the one dueSearch makes alone with one walk: on
// tardiness alone from the best order and from the best other candidate,
// on SLA cost from budgetBoundJobs jobs from the best order with the split
// descent and without it; and that it answers the better. On some
// instance the second must win, or it buys nothing.
func TestDueSearches(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	for _, c := range []struct {
		metrics    []penalty.Metric
		jobs, more int
		budget     int
	}{
		{[]penalty.Metric{penalty.AvgTardiness, penalty.WeightedTardiness}, 30, 60, 400},
		{[]penalty.Metric{penalty.SLACost}, budgetBoundJobs, 20, 300},
	} {
		secondWon := 0
		for i := range 10 {
			m := c.metrics[i%len(c.metrics)]
			in := deadlineInstance(t, rng, c.jobs+rng.IntN(c.more), m)
			ev := newEvaluator(in)
			var sorted []scoredOrder
			for _, o := range in.classicalOrders() {
				sorted = append(sorted, scoredOrder{o, ev.score(o.order)})
			}
			slices.SortStableFunc(sorted, func(a, b scoredOrder) int {
				if a.s.less(b.s) {
					return -1
				}
				if b.s.less(a.s) {
					return 1
				}
				return 0
			})
			best := sorted[0]
			got := ev.dueSearches(best, sorted, c.budget)
			var alone [2]scoredOrder
			for x := range 2 {
				start := best
				e := newEvaluator(in)
				e.walks = 1
				if x == 1 && m == penalty.SLACost {
					e.noSplit = true
				} else if x == 1 {
					y := slices.IndexFunc(sorted, func(s scoredOrder) bool { return !slices.Equal(s.o.order, best.o.order) })
					start = sorted[y]
				}
				alone[x] = e.dueSearch(start, c.budget)
			}
			want := alone[0]
			if alone[1].s.less(alone[0].s) {
				want = alone[1]
				secondWon++
			}
			if !slices.Equal(got.o.order, want.o.order) || got.s != want.s {
				t.Errorf("instance %d (%s, %d jobs): dueSearches %v, better search alone %v", i, m, len(in.jobs), got.s, want.s)
			}
		}
		if secondWon == 0 {
			t.Errorf("%v: the second search never won", c.metrics)
		}
	}
}
