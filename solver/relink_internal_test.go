package solver

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// TestRelink checks relink's contract on SLA cost: no point between an
// answer and itself; between two answers whose targets differ in several
// jobs, an order of the instance's jobs scored exactly, other than both
// ends' orders; and nothing once the budget is spent before the first step.
func TestRelink(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 1))
	found := 0
	for i := range 6 {
		in := deadlineInstance(t, rng, 60+rng.IntN(60), penalty.SLACost)
		ev := newEvaluator(in)
		orders := in.classicalOrders()
		score := func(o ordering) scoredOrder { return scoredOrder{o, ev.score(o.order)} }
		a, b := score(orders[0]), score(orders[len(orders)-1])
		if _, _, ok := ev.relink(a, a, in.backOrder(), 1_000); ok {
			t.Errorf("instance %d: a point between %s and itself", i, a.o.scheme)
		}
		if _, _, ok := ev.relink(a, b, in.backOrder(), 2); ok {
			t.Errorf("instance %d: a point with a budget of the ends' two schedules", i)
		}
		m, spent, ok := ev.relink(a, b, in.backOrder(), 1_000)
		if !ok {
			continue
		}
		found++
		if got := slices.Sorted(slices.Values(m.o.order)); !slices.Equal(got, identity(len(in.jobs))) {
			t.Fatalf("instance %d: relink's order is not a permutation of the jobs", i)
		}
		if s := ev.score(m.o.order); s != m.s {
			t.Errorf("instance %d: relink scored %v, the order scores %v", i, m.s, s)
		}
		if slices.Equal(m.o.order, a.o.order) || slices.Equal(m.o.order, b.o.order) {
			t.Errorf("instance %d: relink answered an end of the path", i)
		}
		if spent < 4 {
			t.Errorf("instance %d: relink spent %d evaluations, fewer than the ends', one step and the answer's", i, spent)
		}
	}
	if found == 0 {
		t.Error("relink found no point between two classical orders on any instance")
	}
}
