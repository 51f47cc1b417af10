package solver

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
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
			alone[x] = e.iterate(best, budget, searchWindow, searchWindow, e.kickSpan(), rand.New(rand.NewPCG(uint64(len(start)), 0x6b1c+uint64(x))))
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
// tardiness alone from the best order and, jumping far, from SRPT below
// budgetBoundJobs jobs and from the best other candidate from there; on
// SLA cost from the best order with the split descent and, without it,
// from the best other candidate below budgetBoundJobs and from the best
// order from there; and that it answers the best. On SLA cost and, from
// budgetBoundJobs jobs, on tardiness (searchHalves) those two have half
// the budget, and the other half goes to two searches from the better
// answer, as the first (without the split descent on SLA cost), kicked
// apart, the second by its targets' deadlines alone on SLA cost
// (byDeadline); on SLA cost the second of them starts from the best point
// between the first half's answers (relinkAnswers), and both do if it
// beats them; the best point between the second half's answers is the
// answer if it beats them all. On some instance the second must win, or
// it buys nothing, the second half's two searches must end apart on some
// instance, or their kicks do not differ, and on SLA cost there must be a
// point between on some instance and, from budgetBoundJobs jobs, one that
// beats both answers, after each half.
func TestDueSearches(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	tardiness := []penalty.Metric{penalty.AvgTardiness, penalty.WeightedTardiness}
	sla := []penalty.Metric{penalty.SLACost}
	for _, c := range []struct {
		metrics    []penalty.Metric
		jobs, more int
		budget     int
	}{
		{tardiness, 30, 60, 400},
		{tardiness, budgetBoundJobs, 20, 600},
		{sla, 30, 60, 300},
		{sla, budgetBoundJobs, 20, 300},
	} {
		secondWon, apart, relinked, relinkWon, endWon := 0, 0, 0, 0, 0
		for i := range 10 {
			m := c.metrics[i%len(c.metrics)]
			in := deadlineInstance(t, rng, c.jobs+rng.IntN(c.more), m)
			n := len(in.jobs)
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
			halves := m == penalty.SLACost || n >= budgetBoundJobs
			first := c.budget
			if halves {
				first = c.budget / 2
			}
			var alone [2]scoredOrder
			for x := range 2 {
				start := best
				e := newEvaluator(in)
				e.walks = 1
				if x == 1 {
					other := slices.IndexFunc(sorted, func(s scoredOrder) bool { return !slices.Equal(s.o.order, best.o.order) })
					switch {
					case m == penalty.SLACost:
						e.noSplit = true
						if n < budgetBoundJobs {
							start = sorted[other]
						}
					case n < budgetBoundJobs:
						// SRPT, unless it is best's order.
						e.farJumps = true
						start = sorted[other]
						if y := slices.IndexFunc(sorted, func(s scoredOrder) bool { return s.o.scheme == "srpt" }); !slices.Equal(sorted[y].o.order, best.o.order) {
							start = sorted[y]
						}
					default:
						e.farJumps = true
						start = sorted[other]
					}
				}
				alone[x] = e.dueSearch(start, first)
			}
			want := alone[0]
			if alone[1].s.less(alone[0].s) {
				want = alone[1]
				secondWon++
			}
			if halves {
				mid := want
				from, rest := [2]scoredOrder{mid, mid}, c.budget-first
				if m == penalty.SLACost {
					// The best point between the two answers starts the
					// second search, or both if it beats them.
					between, used, ok := newEvaluator(in).relinkAnswers(alone, in.backOrder(), int(relinkShare*float64(c.budget)))
					rest -= used
					if ok {
						relinked++
					}
					switch {
					case ok && between.s.less(mid.s):
						mid, want, from = between, between, [2]scoredOrder{between, between}
						relinkWon++
					case ok:
						from[1] = between
					}
				}
				for x := range 2 {
					e := newEvaluator(in)
					e.walks, e.noSplit, e.kicks = 1, m == penalty.SLACost, secondHalfKicks+uint64(x)
					e.byDeadline = m == penalty.SLACost && x == 1
					alone[x] = e.dueSearch(from[x], rest)
					if alone[x].s.less(want.s) {
						want = alone[x]
					}
				}
				if !slices.Equal(alone[0].o.order, alone[1].o.order) {
					apart++
				}
				if m == penalty.SLACost {
					// The best point between the second half's answers
					// is the answer if it beats them all.
					if end, _, ok := newEvaluator(in).relinkAnswers(alone, in.backOrder(), int(relinkShare*float64(c.budget))); ok && end.s.less(want.s) {
						want = end
						endWon++
					}
				}
			}
			if !slices.Equal(got.o.order, want.o.order) || got.s != want.s {
				t.Errorf("instance %d (%s, %d jobs): dueSearches %v, better search alone %v", i, m, n, got.s, want.s)
			}
		}
		if secondWon == 0 {
			t.Errorf("%v from %d jobs: the second search never won", c.metrics, c.jobs)
		}
		if (slices.Contains(c.metrics, penalty.SLACost) || c.jobs >= budgetBoundJobs) && apart == 0 {
			t.Errorf("%v from %d jobs: the second half's searches never ended apart", c.metrics, c.jobs)
		}
		if slices.Contains(c.metrics, penalty.SLACost) && relinked == 0 {
			t.Errorf("%v from %d jobs: no point between the first half's answers", c.metrics, c.jobs)
		}
		if slices.Contains(c.metrics, penalty.SLACost) && c.jobs >= budgetBoundJobs && relinkWon == 0 {
			t.Errorf("%v from %d jobs: a point between the first half's answers never beat them", c.metrics, c.jobs)
		}
		if slices.Contains(c.metrics, penalty.SLACost) && c.jobs >= budgetBoundJobs && endWon == 0 {
			t.Errorf("%v from %d jobs: a point between the second half's answers never beat them", c.metrics, c.jobs)
		}
	}
}

// TestSecondSearchJumpsFar holds the instance that showed why dueSearches'
// second search on tardiness jumps as far as the order is long:
// testdata/blocked-basin.json is sim.GenerateInstance's base case at
// J = 200 (S = 2,000), seed 11, index 7, on weighted tardiness. With
// window search's jumps capped at maxJump, FLEX ended at 0.683 at every
// effort, where one window descent that may move any job anywhere reaches
// 0.531 from SRPT (and a long search 0.461): a large job ahead of many had
// to move about a hundred positions back. FLEX at the default effort must
// now do at least as well as that descent.
func TestSecondSearchJumpsFar(t *testing.T) {
	b, err := os.ReadFile("testdata/blocked-basin.json")
	if err != nil {
		t.Fatal(err)
	}
	p := Problem{Slots: 2000, Metric: penalty.WeightedTardiness}
	if err := json.Unmarshal(b, &p.Jobs); err != nil {
		t.Fatal(err)
	}
	r, err := Flex{}.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	in, err := newInstance(p)
	if err != nil {
		t.Fatal(err)
	}
	n := len(in.jobs)
	srpt := sortedBy(n, func(k int) float64 { return in.work[k] })
	_, s, _ := newEvaluator(in).windowSearch(srpt, nil, 10*n*n, n, n, n, nil)
	if r.Value > s.value*(1+1e-9) {
		t.Errorf("FLEX %.4f (%s), worse than one descent with every jump from SRPT, %.4f", r.Value, r.Scheme, s.value)
	}
}

// TestBigSwapsEndWhereNoSwapPays: bigSwaps returns a permutation scored as
// its full schedule scores, never worse than where it starts, and where it
// stops no swap it looks at (one of the bigSwapLate most penalised late
// jobs with one of the bigSwapJobs on-time jobs with the most work ahead of
// it) scores better, before any polish: a swap that did would be within
// bigSwapSlack, and its window search only lowers it.
func TestBigSwapsEndWhereNoSwapPays(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	improved := 0
	const instances = 10
	for i := range instances {
		m, in, ev, start, s0 := tardinessFromEDD(t, rng, i)
		n := len(in.jobs)
		from := scoredOrder{ordering{"edd", start}, s0}
		got := ev.bigSwaps(from, 1_000_000)
		if !slices.Equal(slices.Sorted(slices.Values(got.o.order)), identity(n)) {
			t.Fatalf("instance %d: bigSwaps' order is not a permutation", i)
		}
		full := ev.score(got.o.order)
		if cmpTol(full.value, got.s.value) != 0 {
			t.Errorf("instance %d: bigSwaps reported %v, the full schedule scores %v", i, got.s.value, full.value)
		}
		if from.s.less(full) {
			t.Errorf("instance %d (%s): bigSwaps went from %v to %v", i, m, from.s.value, full.value)
		}
		if full.less(from.s) {
			improved++
		}
		order := got.o.order
		pen := make([]float64, n)
		for _, k := range order {
			pen[k] = in.fn[k].At(ev.completions[k])
		}
		for _, a := range bigSwapLateJobs(nil, order, pen) {
			pa := slices.Index(order, a)
			for _, b := range bigSwapBigJobs(nil, order[:pa], pen, in.work) {
				swapped := slices.Clone(order)
				pb := slices.Index(order, b)
				swapped[pa], swapped[pb] = b, a
				if sw := ev.score(swapped); sw.lessBy(full, 1e-6) {
					t.Errorf("instance %d (%s): swapping late job %d with job %d scores %v, below the answer's %v", i, m, a, b, sw.value, full.value)
				}
			}
		}
	}
	t.Logf("improved %d of %d", improved, instances)
	if improved == 0 {
		t.Errorf("bigSwaps improved none of %d starts", instances)
	}
}
