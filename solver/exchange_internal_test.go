package solver

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/flexd/flexd/penalty"
)

// deadlineProblem draws n jobs on 10 n slots in the shape of the FLEX 4.1
// generator (minima from a quarter of the slots, deadlines and three SLA
// steps within the time the whole work takes): enough jobs late that the
// searches over on-time sets and SLA targets have something to do.
func deadlineProblem(rng *rand.Rand, n int, m penalty.Metric) Problem {
	slots := 10 * n
	p := Problem{Slots: slots, Metric: m}
	total := 0.0
	for k := range n {
		mn := 1 + rng.IntN(max(1, slots/(4*n)))
		mx := mn + rng.IntN(slots/2)
		w := 1 + rng.Float64()*100
		if rng.IntN(5) < 4 {
			w /= 10 // small jobs
		}
		total += w
		p.Jobs = append(p.Jobs, Job{ID: fmt.Sprintf("j%03d", k), Min: mn, Max: mx, Work: w, Weight: rng.Float64()})
	}
	horizon := total / float64(slots)
	for k := range p.Jobs {
		p.Jobs[k].Deadline, p.Jobs[k].HasDeadline = rng.Float64()*horizon, true
		ds := []float64{rng.Float64() * horizon, rng.Float64() * horizon, rng.Float64() * horizon}
		slices.Sort(ds)
		ps := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		slices.Sort(ps)
		for x := range ds {
			p.Jobs[k].SLA = append(p.Jobs[k].SLA, penalty.Step{Deadline: ds[x] + float64(x)*1e-9, Penalty: ps[x]})
		}
	}
	return p
}

// deadlineInstance is deadlineProblem's instance, failing t if it does not
// validate.
func deadlineInstance(t *testing.T, rng *rand.Rand, n int, m penalty.Metric) *instance {
	t.Helper()
	in, err := newInstance(deadlineProblem(rng, n, m))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// tardinessFromEDD is the i-th start of the tests of tardiness's moves: an
// instance of 30 to 89 jobs on weighted tardiness (i even) or
// avg_tardiness, its evaluator, and its jobs by reachable deadline, scored.
func tardinessFromEDD(t *testing.T, rng *rand.Rand, i int) (penalty.Metric, *instance, *evaluator, []int, score) {
	t.Helper()
	m := alternate(i, penalty.WeightedTardiness, penalty.AvgTardiness)
	in := deadlineInstance(t, rng, 30+rng.IntN(60), m)
	ev := newEvaluator(in)
	start := sortedBy(len(in.jobs), in.reachableDue)
	return m, in, ev, start, ev.score(start)
}

// alternate is even for an even i and odd for an odd one: the metric of
// instance i in tests that alternate two.
func alternate(i int, even, odd penalty.Metric) penalty.Metric {
	if i%2 == 1 {
		return odd
	}
	return even
}

// TestExchangeSearchesScoreWhatTheyReturn: swapSearch (sums of tardy jobs)
// and levelSearch (SLA cost) score their moves incrementally (estimates
// from the incumbent's recorded run, confirmed by resuming it); the order
// each returns must be a permutation whose full MPS score is the score it
// reports, and no worse than the order it started from.
func TestExchangeSearchesScoreWhatTheyReturn(t *testing.T) {
	for _, c := range []struct {
		metric penalty.Metric
		search func(ev *evaluator, start []int, back []int) ([]int, score, int)
	}{
		{penalty.WeightedTardyJobs, func(ev *evaluator, start, back []int) ([]int, score, int) {
			return ev.swapSearch(ev.onTimeSet(start), sortedBy(len(start), ev.in.reachableDue), back, 5000)
		}},
		{penalty.TardyJobs, func(ev *evaluator, start, back []int) ([]int, score, int) {
			return ev.swapSearch(ev.onTimeSet(start), sortedBy(len(start), ev.in.reachableDue), back, 5000)
		}},
		{penalty.SLACost, func(ev *evaluator, start, back []int) ([]int, score, int) {
			return ev.levelSearch(start, back, 5000)
		}},
	} {
		t.Run(string(c.metric), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, 11))
			moved := 0
			for i := range 12 {
				in := deadlineInstance(t, rng, 30+rng.IntN(50), c.metric)
				ev := newEvaluator(in)
				n := len(in.jobs)
				start := sortedBy(n, in.reachableDue)
				s0 := ev.score(start)
				back := sortedBy(n, func(k int) float64 { return -in.stake(k) })
				got, s, _ := c.search(ev, start, back)
				if sorted := slices.Sorted(slices.Values(got)); !slices.Equal(sorted, sortedBy(n, func(k int) float64 { return float64(k) })) {
					t.Fatalf("instance %d: %v is not a permutation", i, got)
				}
				if full := ev.score(got); cmpTol(full.value, s.value) != 0 {
					t.Errorf("instance %d: reported %v, full schedule scores %v", i, s.value, full.value)
				}
				if cmpTol(s.value, s0.value) > 0 {
					t.Errorf("instance %d: %v from a start of %v", i, s.value, s0.value)
				}
				if s.less(s0) {
					moved++
				}
			}
			// The searches must do something on these instances, or the
			// test checks nothing.
			if moved < 6 {
				t.Errorf("improved on %d of 12 instances, want at least 6", moved)
			}
		})
	}
}

// TestExchangeKeysInParallel: on sums of tardy jobs dueSearch runs its two
// keys' split and exchange searches at once, on two evaluators; the answer
// and the evaluations must be those of running them one after the other.
func TestExchangeKeysInParallel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	improved := 0
	for i := range 16 {
		m := alternate(i, penalty.TardyJobs, penalty.WeightedTardyJobs)
		in := deadlineInstance(t, rng, 20+rng.IntN(120), m)
		var got [2]scoredOrder
		var evals [2]int
		for x, serial := range []bool{true, false} {
			ev := newEvaluator(in)
			ev.serial = serial
			start := sortedBy(len(in.jobs), in.reachableDue)
			best := scoredOrder{ordering{"edd", start}, ev.score(start)}
			got[x] = ev.dueSearch(best, 3000)
			evals[x] = ev.evaluations
			if x == 0 && got[x].s.less(best.s) {
				improved++
			}
		}
		if !slices.Equal(got[0].o.order, got[1].o.order) || got[0].s != got[1].s || got[0].o.scheme != got[1].o.scheme || evals[0] != evals[1] {
			t.Errorf("instance %d (%s, %d jobs): serial %s %v (%d evaluations), parallel %s %v (%d)",
				i, m, len(in.jobs), got[0].o.scheme, got[0].s, evals[0], got[1].o.scheme, got[1].s, evals[1])
		}
	}
	if improved < 8 {
		t.Errorf("the search improved %d of 16 starts: the test compares too little", improved)
	}
}

// TestParallelSolveIsSerial: Solve runs independent work at once (from
// parallelScoreJobs jobs on the first candidates' scores; on step metrics
// but SLA cost at scale the admission orders' two keys; on the search at
// scale the dispatch orders and the exchange keys); the answer,
// explanation and counts must be those of the solve kept on one
// goroutine.
func TestParallelSolveIsSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	for _, c := range []struct {
		m    penalty.Metric
		jobs int
	}{
		{penalty.AvgResponseTime, parallelScoreJobs}, {penalty.MaxStretch, parallelScoreJobs}, {penalty.WeightedTardyJobs, parallelScoreJobs},
		{penalty.TardyJobs, 100}, {penalty.TardyJobs, budgetBoundJobs}, {penalty.AvgTardiness, 80}, {penalty.WeightedTardiness, 150}, {penalty.SLACost, 120},
		{penalty.SLACost, budgetBoundJobs},
	} {
		m := c.m
		p := deadlineProblem(rng, c.jobs+rng.IntN(c.jobs/4), m)
		p.Options.Explain = true
		serial, err := Flex{serial: true}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		parallel, err := Flex{}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		if len(serial.Candidates) < 2 {
			t.Fatalf("%s: %d candidates: nothing scored in parallel", m, len(serial.Candidates))
		}
		if !reflect.DeepEqual(serial, parallel) {
			t.Errorf("%s, %d jobs: parallel %s %v (%d evaluations), serial %s %v (%d)", m, len(p.Jobs),
				parallel.Scheme, parallel.Value, parallel.Stats.Evaluations, serial.Scheme, serial.Value, serial.Stats.Evaluations)
		}
	}
}

// TestDescendAtOnceIsTwoDescents: the pre-phase's starts searched at once
// give what descending from every other start in turn with half the budget
// gives, twice over, the better of the two (the first on ties), and spend
// what the two spend.
func TestDescendAtOnceIsTwoDescents(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 3))
	for _, m := range []penalty.Metric{penalty.SLACost, penalty.WeightedTardiness, penalty.TardyJobs} {
		p := deadlineProblem(rng, 60, m)
		in, err := newInstance(p)
		if err != nil {
			t.Fatal(err)
		}
		ev := newEvaluator(in)
		var starts []scoredOrder
		for x := range 4 {
			o := rng.Perm(60)
			starts = append(starts, scoredOrder{ordering{fmt.Sprintf("start%d", x), o}, ev.score(o)})
		}
		worst := starts[0]
		for _, st := range starts {
			if worst.s.less(st.s) {
				worst = st
			}
		}
		const budget = 400
		got, spent := ev.descendAtOnce(starts, worst, budget)
		want, wantSpent := worst, 0
		for g := range 2 {
			b, used := newEvaluator(in).descend([]scoredOrder{starts[g], starts[g+2]}, worst, budget/2, false)
			wantSpent += used
			if b.s.less(want.s) {
				want = b
			}
		}
		if got.o.scheme != want.o.scheme || !slices.Equal(got.o.order, want.o.order) || got.s != want.s || spent != wantSpent {
			t.Errorf("%s: at once %s %v (spent %d), in turn %s %v (spent %d)", m, got.o.scheme, got.s, spent, want.o.scheme, want.s, wantSpent)
		}
		if spent > budget || !got.s.less(worst.s) {
			t.Errorf("%s: spent %d of %d, %v against the worst start's %v", m, spent, budget, got.s, worst.s)
		}
	}
}

// TestAdmissionOrdersWhereTheyServe: the admission orders are among the
// candidates of the step metrics, but not of SLA cost alone at scale
// (past maxExhaustiveSearchJobs), whose level search chooses each job's
// step from its start.
func TestAdmissionOrdersWhereTheyServe(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	for _, c := range []struct {
		m    penalty.Metric
		jobs int
		want bool
	}{
		{penalty.SLACost, maxExhaustiveSearchJobs + 1, false}, {penalty.SLACost, 60, false},
		{penalty.SLACost, maxExhaustiveSearchJobs, true}, {penalty.WeightedTardyJobs, 60, true}, {penalty.TardyJobs, 60, true},
	} {
		p := deadlineProblem(rng, c.jobs, c.m)
		p.Options.Explain = true
		res, err := Flex{}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.ContainsFunc(res.Candidates, func(cd Candidate) bool { return strings.HasPrefix(cd.Scheme, "admission_") })
		if got != c.want {
			t.Errorf("%s, %d jobs: admission orders among the candidates: %v, want %v", c.m, c.jobs, got, c.want)
		}
	}
}

// TestScreenCandidates: swapSearch's screening offers, for a late job, the
// front jobs due no later than it, the ones with the most work first (ties
// in stake order), at most k of them.
func TestScreenCandidates(t *testing.T) {
	byStake := []int{4, 0, 3, 1, 5, 2, 6}
	front := []bool{true, true, false, true, true, true, true}
	dueAt := []float64{5, 3, 1, 9, 7, 2, 7}
	work := []float64{10, 30, 50, 20, 10, 30, 99}
	// Job 4 (due at 7): jobs 0, 1, 5 and 6 are in front and due no later
	// (2 is not in front, 3 is due later); by work 6, then 1 and 5 (equal:
	// 1 first in stake order), then 0.
	byWork := mostWorkFirst(byStake, work)
	if want := []int{6, 2, 1, 5, 3, 4, 0}; !slices.Equal(byWork, want) {
		t.Fatalf("mostWorkFirst: %v, want %v", byWork, want)
	}
	for k, want := range [][]int{{}, {6}, {6, 1}, {6, 1, 5}, {6, 1, 5, 0}, {6, 1, 5, 0}} {
		if got := screenCandidates(byWork, front, dueAt, dueAt[4], k, nil, 4); !slices.Equal(got, want) {
			t.Errorf("k = %d: %v, want %v", k, got, want)
		}
	}
	// The jobs excepted are never offered, even when in front and due
	// in time (the late jobs themselves).
	if got := screenCandidates(byWork, front, dueAt, dueAt[6], 10, nil, 6, 1); slices.Contains(got, 6) || slices.Contains(got, 1) {
		t.Errorf("jobs 6 and 1 excepted, offered: %v", got)
	}
}

// TestExchangeKeysCountOnce: from budgetBoundJobs jobs the two keys'
// searches count the larger of their spendings, as their time goes, and
// below it both; each key's search (split search, exchanges, repair) is
// the one it makes alone, with the whole budget's share, or on tardy jobs unweighted below budgetBoundJobs
// with 1 / len(keys) of it (the keys share one key's budget), which must
// then cut a search short.
func TestExchangeKeysCountOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 3))
	for _, c := range []struct {
		n      int
		m      penalty.Metric
		shared bool
	}{
		{budgetBoundJobs - 30, penalty.WeightedTardyJobs, false},
		{budgetBoundJobs + 10, penalty.WeightedTardyJobs, false},
		{budgetBoundJobs - 30, penalty.TardyJobs, true},
		{budgetBoundJobs + 10, penalty.TardyJobs, false},
	} {
		n := c.n
		in := deadlineInstance(t, rng, n, c.m)
		ev := newEvaluator(in)
		start := sortedBy(n, in.reachableDue)
		best := scoredOrder{ordering{"edd", start}, ev.score(start)}
		onTime := ev.onTimeSet(start)
		back := identity(n)
		keys := []dueKey{{"split_edd", in.reachableDue, nil}, {"split_due", func(k int) float64 { return in.reachableDue(k) + float64(k%3) }, nil}}
		const budget = 600
		_, spent := ev.exchangeKeys(keys, onTime, back, best, 7, budget)
		// used is each key's spending alone with keyBudget.
		used := func(keyBudget int) (u [2]int) {
			for x, key := range keys {
				e := newEvaluator(in)
				front := slices.Clone(onTime)
				due := sortedBy(n, key.due)
				_, _, u1 := e.splitSearch(front, due, back, keyBudget/(2*splitShare))
				o, s, u2 := e.swapSearch(front, due, back, keyBudget/(2*swapShare))
				_, u3 := e.admitRepair(scoredOrder{ordering{"", o}, s}, back, min(repairEvaluations, keyBudget/(2*swapShare)))
				u[x] = u1 + u2 + u3
			}
			return u
		}
		u := used(budget)
		if c.shared {
			whole := u
			u = used(budget / len(keys))
			if whole == u {
				t.Errorf("%d jobs, %s: the keys spend %v with the whole budget as with a share: the test shows no sharing", n, c.m, u)
			}
		}
		want := 7 + u[0] + u[1]
		if n >= budgetBoundJobs {
			want = 7 + max(u[0], u[1])
		}
		if spent != want {
			t.Errorf("%d jobs, %s: spent %d, want %d (keys %d and %d)", n, c.m, spent, want, u[0], u[1])
		}
	}
}

// TestKickExchanges: a level descent after a kick makes exchanges only in
// levelSearch's second walk (levels.kickExchanges). With them it follows the
// descent without them to its end, then goes on from there, so it ends no
// worse, having spent no less; on some instance it must go further, or the
// second walk's neighbourhood is the first's. Such instances are few (one
// in 40 with a kick of four jobs), hence 60 instances and a kick of eight.
func TestKickExchanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	further := 0
	for i := range 60 {
		in := deadlineInstance(t, rng, 40+rng.IntN(40), penalty.SLACost)
		n := len(in.jobs)
		start := sortedBy(n, in.reachableDue)
		back := identity(n)
		var got [2]score
		var spent [2]int
		for x, exchanges := range []bool{false, true} {
			ev := newEvaluator(in)
			lv := ev.newLevels(start, back)
			order, _, _ := ev.levelDescent(lv, slices.Clone(start), 2000, nil)
			// A kick: the first eight jobs of the order a step later,
			// where they can be; the descent looks near them.
			look := make([]bool, n)
			for _, k := range order[:8] {
				if lv.level[k] < lv.none[k] {
					lv.level[k]++
				}
				look[k] = true
			}
			lv.build(order)
			lv.kickExchanges = exchanges
			_, got[x], spent[x] = ev.levelDescent(lv, order, 2000, look)
		}
		if got[0].less(got[1]) || spent[1] < spent[0] {
			t.Errorf("instance %d: with exchanges %v after %d evaluations, without %v after %d", i, got[1], spent[1], got[0], spent[0])
		}
		if got[1].less(got[0]) {
			further++
		}
	}
	if further == 0 {
		t.Error("exchanges after a kick never found anything")
	}
}

// TestRuinKeepsItsContract: a ruin (the level walks' other kick from
// budgetBoundJobs jobs) gives its job a target a step later and others at
// most a step earlier, no more than ruinRaises of them; returns an order
// built by the targets it leaves, with that order's full score; and keeps an
// earlier target only when it pays, so that it scores below the ruin alone
// whenever it raised a job, and never above it.
func TestRuinKeepsItsContract(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 17))
	var rs ruinSpace
	tried, raised, paid := 0, 0, 0
	for i := range 4 {
		in := deadlineInstance(t, rng, budgetBoundJobs+rng.IntN(50), penalty.SLACost)
		ev := newEvaluator(in)
		n := len(in.jobs)
		back := identity(n)
		start, _, _ := ev.levelSearch(sortedBy(n, in.reachableDue), back, 1000)
		lv := ev.newLevels(start, back)
		order := slices.Clone(start)
		lv.build(order)
		walk := ev.score(order)
		for _, r := range lv.byWork[:20] {
			if lv.level[r] >= lv.none[r] {
				continue
			}
			tried++
			before := slices.Clone(lv.level)
			lv.level[r]++
			alone := slices.Clone(order)
			lv.rebuild(alone, r)
			aloneS := ev.score(alone)
			lv.level[r]--

			got, s, used := ev.ruin(lv, order, r, 1_000_000, &rs)
			if !slices.Equal(slices.Sorted(slices.Values(got)), identity(n)) {
				t.Fatalf("instance %d, job %d: ruin's order is not a permutation", i, r)
			}
			if !slices.IsSortedFunc(got, lv.cmp) {
				t.Errorf("instance %d, job %d: ruin's order is not built by the targets it left", i, r)
			}
			if full := ev.score(got); cmpTol(full.value, s.value) != 0 {
				t.Errorf("instance %d, job %d: ruin reported %v, the full schedule scores %v", i, r, s.value, full.value)
			}
			if used < 1 {
				t.Errorf("instance %d, job %d: ruin spent %d evaluations", i, r, used)
			}
			if lv.level[r] != before[r]+1 {
				t.Errorf("instance %d: job %d's target went from %d to %d, want a step later", i, r, before[r], lv.level[r])
			}
			up := 0
			for k := range n {
				switch {
				case k == r || lv.level[k] == before[k]:
				case lv.level[k] == before[k]-1:
					up++
				default:
					t.Errorf("instance %d, job %d: job %d's target went from %d to %d", i, r, k, before[k], lv.level[k])
				}
			}
			if up > ruinRaises {
				t.Errorf("instance %d, job %d: %d targets made earlier, want at most %d", i, r, up, ruinRaises)
			}
			switch {
			case aloneS.less(s):
				t.Errorf("instance %d, job %d: ruin scored %v, the ruin alone %v", i, r, s.value, aloneS.value)
			case up > 0 && !s.less(aloneS):
				t.Errorf("instance %d, job %d: %d earlier targets kept that do not pay (%v, alone %v)", i, r, up, s.value, aloneS.value)
			}
			if up > 0 {
				raised++
			}
			if s.less(walk) {
				paid++
			}
			copy(lv.level, before)
		}
	}
	t.Logf("ruins %d, with earlier targets kept %d, better than the walk %d", tried, raised, paid)
	if raised < tried/4 || paid < 1 {
		t.Errorf("of %d ruins %d kept an earlier target and %d beat the walk, want a quarter and one", tried, raised, paid)
	}
}

// TestLateSwapsEndWhereNoSwapPays: lateSwaps (tardiness at scale) returns a
// permutation with its full score, no worse than its start, and, given the
// budget, one where no swap of two late jobs out of Smith's order scores
// better; on some of the instances it must improve its start.
func TestLateSwapsEndWhereNoSwapPays(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 21))
	improved := 0
	const instances = 12
	for i := range instances {
		m, in, ev, start, s0 := tardinessFromEDD(t, rng, i)
		n := len(in.jobs)
		got, s, used := ev.lateSwaps(start, &s0, 1_000_000)
		if !slices.Equal(slices.Sorted(slices.Values(got)), identity(n)) {
			t.Fatalf("instance %d: lateSwaps' order is not a permutation", i)
		}
		if used < 1 {
			t.Errorf("instance %d: lateSwaps spent %d evaluations", i, used)
		}
		full := ev.score(got)
		if cmpTol(full.value, s.value) != 0 {
			t.Errorf("instance %d: lateSwaps reported %v, the full schedule scores %v", i, s.value, full.value)
		}
		if s0.less(full) {
			t.Errorf("instance %d (%s): lateSwaps went from %v to %v", i, m, s0.value, full.value)
		}
		if full.less(s0) {
			improved++
		}
		late := make([]bool, n)
		for x, k := range got {
			late[x] = in.fn[k].At(ev.completions[k]) > 0
		}
		ratio := func(k int) float64 { return in.stake(k) / in.work[k] }
		swapped := slices.Clone(got)
		for a := range n {
			for b := a + 1; b < n; b++ {
				if !late[a] || !late[b] || ratio(got[b]) <= ratio(got[a]) {
					continue
				}
				swapped[a], swapped[b] = swapped[b], swapped[a]
				if sw := ev.score(swapped); sw.lessBy(full, 1e-6) {
					t.Errorf("instance %d (%s): swapping late jobs at %d and %d scores %v, below the answer's %v", i, m, a, b, sw.value, full.value)
				}
				swapped[a], swapped[b] = swapped[b], swapped[a]
			}
		}
	}
	t.Logf("improved %d of %d", improved, instances)
	if improved < instances/3 {
		t.Errorf("lateSwaps improved %d of %d starts, want a third", improved, instances)
	}

	// Past lateSwapJobs late jobs it pairs only the most penalised, and
	// still returns a permutation with its full score, no worse.
	in := deadlineInstance(t, rng, 600, penalty.WeightedTardiness)
	ev := newEvaluator(in)
	n := len(in.jobs)
	start := sortedBy(n, in.reachableDue)
	s0 := ev.score(start)
	late := 0
	for _, k := range start {
		if in.fn[k].At(ev.completions[k]) > 0 {
			late++
		}
	}
	if late <= lateSwapJobs {
		t.Fatalf("%d jobs late of %d, want more than %d", late, n, lateSwapJobs)
	}
	got, s, _ := ev.lateSwaps(start, &s0, 200)
	if !slices.Equal(slices.Sorted(slices.Values(got)), identity(n)) {
		t.Fatalf("%d jobs: lateSwaps' order is not a permutation", n)
	}
	if full := ev.score(got); cmpTol(full.value, s.value) != 0 || s0.less(full) {
		t.Errorf("%d jobs: lateSwaps reported %v, the full schedule scores %v, from %v", n, s.value, full.value, s0.value)
	}
}

// TestLevelDescentEndsAtHome: a descent after a kick whose moves take the
// targets back to the walk's (levels.home) ends there with the walk's order
// and score, spending no more than the same descent without home, which
// goes on from there (mostly to confirm the walk's local optimum again); a
// descent that never gets there is not changed by home.
func TestLevelDescentEndsAtHome(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 19))
	undone, saved := 0, 0
	for i := range 3 {
		in := deadlineInstance(t, rng, 40+rng.IntN(40), penalty.SLACost)
		ev := newEvaluator(in)
		n := len(in.jobs)
		back := sortedBy(n, func(k int) float64 { return -in.stake(k) })
		lv := ev.newLevels(sortedBy(n, in.reachableDue), back)
		walkOrder, walkS, _ := ev.levelDescent(lv, sortedBy(n, in.reachableDue), 1_000_000, nil)
		walk := slices.Clone(lv.level)
		look := make([]bool, n)
		for k := range n {
			if walk[k] >= lv.none[k] {
				continue
			}
			descend := func(home []int) ([]int, score, int, []int) {
				copy(lv.level, walk)
				lv.level[k]++
				kicked := slices.Clone(walkOrder)
				lv.build(kicked)
				clear(look)
				for x := range kicked {
					if kicked[x] != walkOrder[x] {
						markJobs(look, kicked, x, x, levelReach)
					}
				}
				lv.home, lv.homeS = home, walkS
				o, s, used := ev.levelDescent(lv, kicked, 1_000_000, look)
				lv.home = nil
				return slices.Clone(o), s, used, slices.Clone(lv.level)
			}
			o0, _, used0, l0 := descend(nil)
			o1, s1, used1, l1 := descend(walk)
			if full := ev.score(o1); cmpTol(full.value, s1.value) != 0 {
				t.Errorf("instance %d, job %d: reported %v, the full schedule scores %v", i, k, s1.value, full.value)
			}
			if !slices.Equal(l1, walk) {
				// Never at home: the same path as without it.
				if !slices.Equal(o1, o0) || !slices.Equal(l1, l0) || used1 != used0 {
					t.Errorf("instance %d, job %d: a descent that does not go home changed with home", i, k)
				}
				continue
			}
			undone++
			if !slices.Equal(o1, walkOrder) || !slices.Equal(l1, walk) || cmpTol(s1.value, walkS.value) != 0 {
				t.Errorf("instance %d, job %d: the kick undone, home gave another order or score (%v, walk %v)", i, k, s1.value, walkS.value)
			}
			if used1 > used0 {
				t.Errorf("instance %d, job %d: home spent %d evaluations, without it %d", i, k, used1, used0)
			}
			saved += used0 - used1
		}
	}
	t.Logf("kicks undone %d, evaluations saved %d", undone, saved)
	if undone < 10 || saved < undone {
		t.Errorf("%d kicks undone saving %d evaluations, want at least 10 saving more than one each on average", undone, saved)
	}
}

// TestAdmitRepairGivesUpSeveral: on one machine of 10 slots, job h (40
// units of work, weight 1, due at 4) is late behind four jobs of weight
// 0.1 due at 1, 2, 3 and 4 (each a hair earlier, so that the deadline
// order starts with them) that fill the time it needs; it is on time only
// if all four go late. swapSearch's exchanges give up at most two front
// jobs for one and stop at 1; admitRepair brings h in and gives up the
// four (0.4).
func TestAdmitRepairGivesUpSeveral(t *testing.T) {
	p := Problem{Slots: 10, Metric: penalty.WeightedTardyJobs}
	for x, d := range []float64{1, 2, 3, 4} {
		p.Jobs = append(p.Jobs, Job{ID: fmt.Sprintf("l%d", x), Max: 10, Work: 10, Weight: 0.1, Deadline: d + 1e-6, HasDeadline: true})
	}
	p.Jobs = append(p.Jobs, Job{ID: "h", Max: 10, Work: 40, Weight: 1, Deadline: 4 + 2e-6, HasDeadline: true})
	in, err := newInstance(p)
	if err != nil {
		t.Fatal(err)
	}
	ev := newEvaluator(in)
	start := sortedBy(len(in.jobs), in.reachableDue)
	back := identity(len(in.jobs))
	swapped, swapS, _ := ev.swapSearch(ev.onTimeSet(start), start, back, 1000)
	if cmpTol(swapS.value, 1) != 0 {
		t.Fatalf("swapSearch reached %v, want 1 (h late): the instance no longer needs the repair", swapS.value)
	}
	got, used := ev.admitRepair(scoredOrder{ordering{"swap", swapped}, swapS}, back, repairEvaluations)
	// One schedule for the on-time set and one per try: h with 4, 3, 2, 1
	// and none of the others, then a pass that finds nothing more.
	checkRepairedFirst(t, in, got, "swap+repair", used, 6, repairEvaluations)
}

// checkRepairedFirst checks a repair's answer on the hand-made instances
// of TestAdmitRepairGivesUpSeveral and TestLevelRepairMovesSeveralBack:
// the four light jobs given up (0.4), the scheme named, job h first, and
// between least and budget evaluations spent.
func checkRepairedFirst(t *testing.T, in *instance, got scoredOrder, scheme string, used, least, budget int) {
	t.Helper()
	if cmpTol(got.s.value, 0.4) != 0 || got.o.scheme != scheme {
		t.Errorf("repair: %s %v, want %s 0.4", got.o.scheme, got.s.value, scheme)
	}
	h := slices.IndexFunc(in.jobs, func(j Job) bool { return j.ID == "h" })
	if got.o.order[0] != h {
		t.Errorf("the repair's order %v does not start with h (%d)", got.o.order, h)
	}
	if used < least || used > budget {
		t.Errorf("the repair spent %d evaluations, want %d to %d", used, least, budget)
	}
}

// TestLevelRepairMovesSeveralBack: on one machine of 10 slots, job h (40
// units of work) pays 1 past its first step, due at 4, and four jobs of 10
// units pay 0.1 past theirs, due at 1, 2, 3 and 4 (their second steps far
// off). In deadline order h misses its first step (1); it meets it only if
// all four move to their second (0.4). levelRepair gets there from the
// deadline order: a step earlier where h's target is one step from its
// first, and at once where it is two, a step earlier gaining nothing (its
// second step, due at 6, pays as its third does).
func TestLevelRepairMovesSeveralBack(t *testing.T) {
	steps := func(d, pen float64, second float64) []penalty.Step {
		return []penalty.Step{{Deadline: d, Penalty: pen}, {Deadline: second, Penalty: pen}, {Deadline: 200, Penalty: pen}}
	}
	for _, c := range []struct {
		name string
		h    []penalty.Step
	}{
		{"a step earlier", steps(4+2e-6, 1, 100)},
		{"two steps earlier", steps(4+2e-6, 1, 6+2e-6)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Problem{Slots: 10, Metric: penalty.SLACost}
			for x, d := range []float64{1, 2, 3, 4} {
				p.Jobs = append(p.Jobs, Job{ID: fmt.Sprintf("l%d", x), Max: 10, Work: 10, SLA: steps(d+1e-6, 0.1, 100)})
			}
			p.Jobs = append(p.Jobs, Job{ID: "h", Max: 10, Work: 40, SLA: c.h})
			in, err := newInstance(p)
			if err != nil {
				t.Fatal(err)
			}
			ev := newEvaluator(in)
			n := len(in.jobs)
			start := sortedBy(n, func(k int) float64 { return in.pj[k].SLA[0].Deadline })
			s0 := ev.score(start)
			if cmpTol(s0.value, 1) != 0 {
				t.Fatalf("the deadline order scores %v, want 1 (h past its first step)", s0.value)
			}
			got, used := ev.levelRepair(scoredOrder{ordering{"edd", start}, s0}, identity(n), levelRepairEvaluations)
			// Two schedules for the targets, one per try (h with 4, 3,
			// 2, 1 and none of the others ahead), then a pass that finds
			// nothing more.
			checkRepairedFirst(t, in, got, "edd+repair", used, 7, levelRepairEvaluations)
		})
	}
}

// TestRepairsScoreWhatTheyReturn: from the answers of the searches they
// follow on random instances (swapSearch on tardy jobs, levelSearch on SLA
// cost), admitRepair and levelRepair return a permutation whose full
// schedule scores what they report, no worse than their start, within
// their budget; and on some instances each must improve its start.
func TestRepairsScoreWhatTheyReturn(t *testing.T) {
	for _, c := range []struct {
		name    string
		metrics [2]penalty.Metric
		budget  int
		repair  func(ev *evaluator, back []int) (from, got scoredOrder, used int)
	}{
		{"admitRepair", [2]penalty.Metric{penalty.WeightedTardyJobs, penalty.TardyJobs}, repairEvaluations,
			func(ev *evaluator, back []int) (scoredOrder, scoredOrder, int) {
				due := sortedBy(len(back), ev.in.reachableDue)
				o, s, _ := ev.swapSearch(ev.onTimeSet(due), due, back, 300)
				from := scoredOrder{ordering{"swap", o}, s}
				got, used := ev.admitRepair(from, back, repairEvaluations)
				return from, got, used
			}},
		{"levelRepair", [2]penalty.Metric{penalty.SLACost, penalty.SLACost}, levelRepairEvaluations,
			func(ev *evaluator, back []int) (scoredOrder, scoredOrder, int) {
				o, s, _ := ev.levelSearch(sortedBy(len(back), ev.in.reachableDue), back, 300)
				from := scoredOrder{ordering{"level", o}, s}
				got, used := ev.levelRepair(from, back, levelRepairEvaluations)
				return from, got, used
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 17))
			improved := 0
			const instances = 16
			for i := range instances {
				in := deadlineInstance(t, rng, 30+rng.IntN(170), alternate(i, c.metrics[0], c.metrics[1]))
				ev := newEvaluator(in)
				n := len(in.jobs)
				from, got, used := c.repair(ev, sortedBy(n, func(k int) float64 { return -in.stake(k) }))
				if !slices.Equal(slices.Sorted(slices.Values(got.o.order)), identity(n)) {
					t.Fatalf("instance %d: the order is not a permutation", i)
				}
				if full := ev.score(got.o.order); full != got.s {
					t.Errorf("instance %d: reported %v, the full schedule scores %v", i, got.s, full)
				}
				if from.s.less(got.s) {
					t.Errorf("instance %d: went from %v to %v", i, from.s.value, got.s.value)
				}
				if used < 1 || used > c.budget {
					t.Errorf("instance %d: spent %d evaluations, budget %d", i, used, c.budget)
				}
				if got.s.less(from.s) {
					improved++
				}
			}
			if improved == 0 {
				t.Errorf("improved none of %d starts: the test checks nothing", instances)
			}
			t.Logf("improved %d of %d starts", improved, instances)
		})
	}
}

// TestRepairPick: repairPick draws repairPicks jobs and picks the one with
// the most to gain from a step earlier, never one at its first reachable
// step; with every job there it finds none.
func TestRepairPick(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	in := deadlineInstance(t, rng, 60, penalty.SLACost)
	ev := newEvaluator(in)
	n := len(in.jobs)
	lv := ev.newLevels(sortedBy(n, in.reachableDue), identity(n))
	for k := range n {
		lv.level[k] = lv.none[k]
	}
	picked := map[int]bool{}
	for i := range 200 {
		seed := uint64(i)
		k, ok := lv.repairPick(rand.New(rand.NewPCG(seed, 1)))
		draw := rand.New(rand.NewPCG(seed, 1))
		want, wantOK := -1, false
		for range repairPicks {
			j := draw.IntN(n)
			if lv.level[j] > lv.first[j] && (want < 0 || lv.gainEarlier(j) > lv.gainEarlier(want)) {
				want, wantOK = j, true
			}
		}
		if k != want || ok != wantOK {
			t.Fatalf("draw %d: picked %d (%v), want %d (%v)", i, k, ok, want, wantOK)
		}
		picked[k] = true
	}
	if len(picked) < 10 {
		t.Errorf("200 draws picked %d jobs", len(picked))
	}
	copy(lv.level, lv.first)
	if k, ok := lv.repairPick(rng); ok {
		t.Errorf("every job at its first step, yet picked %d", k)
	}
}
