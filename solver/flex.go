package solver

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver/mps"
	"github.com/flexd/flexd/solver/rap"
)

// Flex is the FLEX driver (FLEX section 3, docs/algorithms.md section 4):
// it builds candidate priority orders (the generic RAP order, the classical
// orders and their cap-aware variants), scores each by the MPS schedule it
// yields under the true objective, improves the best by local search, and
// returns the best schedule found.
type Flex struct {
	// serial keeps a solve on one goroutine: the answers are the same
	// (tests compare the two).
	serial bool
}

var _ Solver = Flex{}

// Name implements Solver.
func (Flex) Name() string { return "flex" }

// Tuning constants of the driver. Effort is counted in MPS evaluations, not
// time, so that a result depends on its input only.
const (
	// searchJobEvaluations is the default local-search budget in job-
	// evaluations: the search may build searchJobEvaluations / J schedules,
	// within [minSearchEvaluations, maxSearchEvaluations]. An MPS schedule
	// costs about O(J log J), so this keeps the search's time roughly
	// constant across J (about a millisecond on a 2-core machine).
	searchJobEvaluations = 5_000
	minSearchEvaluations = 4
	maxSearchEvaluations = 600
	// plateauSearchFactor multiplies the budget on plateau objectives with
	// at most maxPlateauBoostJobs jobs, up to plateauSearchPasses * J^2
	// schedules: about ten passes of the local search's neighbourhoods,
	// which cost about 1.5 J^2 schedules each. At J = 10 that is 1,000
	// schedules (under a millisecond); on the FLEX 4.1 base case four times
	// as many found nothing better once the deadline starts and sacrifice
	// moves (below) were in, and at J = 20 SLA cost needs the 2,000 that
	// the factor allows.
	plateauSearchFactor = 8
	plateauSearchPasses = 10
	maxPlateauBoostJobs = 100
	// dueEvaluations is the default budget of the search at scale
	// (dueSearch) at dueEvaluationsJobs jobs, in evaluations (estimates
	// counted by their share of a full schedule; see incumbent.spent).
	dueEvaluations     = 5_000
	dueEvaluationsJobs = 100.0
	// dueTardyEvaluations replaces dueEvaluations on sums of tardy jobs
	// alone, where the exchanges of swapSearch converge in about half of
	// it: on the committed reference sets at J = 100 the whole budget
	// found one tardy job fewer on one instance of fifteen and weighted
	// tardy jobs 0.5% lower on average, at 1.6 times the time.
	dueTardyEvaluations = 2_500
	// tardyBoundGrowth scales the budget on tardy jobs alone from
	// budgetBoundJobs jobs, where their search ran 38 to 40 ms at J = 200
	// against a bar of 60: at 1.3 times 46 to 49 ms (J = 1,000 30 to 38
	// ms -> 33 to 40, bar 100). At J = 200, 22 cells (seeds 1, 10 to 13 and
	// 20 to 25, both settings; four seeds of the kicks), the summed excess
	// over the best known went 0.0310 -> 0.0230 on tardy jobs and 0.0129 ->
	// 0.0064 on weighted tardy jobs (1.5 times: 0.0125 and -0.0068, but
	// some 57 ms); on seeds 26 and 27, not used to choose it, tardy jobs
	// the same (0.0265) and weighted tardy jobs 0.0208 -> 0.0165
	// (docs/solver-at-scale-log.md, session 43).
	//
	// Tardy jobs unweighted have it from dueEvaluationsJobs jobs: at J =
	// 100, where the search took 11 ms against a bar of 20, seed 1's base
	// case (the committed references), instance 4, ended at 5 tardy jobs
	// against the best known 4 at every seed of the kicks, a cell of
	// 1.025 / 1.250; at 1.3 times 4, in 13.7 ms (BenchmarkSolve, vCPUs
	// alike). Measured at the default effort, four seeds of the kicks,
	// summed excess over the best known of 26 cells at J = 100 (seeds 1,
	// 10 to 13, 20 to 25, 42 and 43, both settings; references at effort
	// 20): 0.0700 -> 0.0488 (seed 1's base case and one seed of the kicks
	// on seed 43's fixed, one of seed 21's lost); not used to choose it,
	// seeds 26, 27 and 36 to 41 the same (0.0250). Weighted tardy jobs
	// did worse with more budget at J = 100 (26 cells, the default seed,
	// 0.0767 -> 0.0985), and keep theirs (docs/solver-at-scale-log.md,
	// session 51).
	tardyBoundGrowth = 1.3
	// dueTardinessEvaluations replaces dueEvaluations on sums of
	// (weighted) tardiness alone at dueEvaluationsJobs: window search's
	// guesses (guessBest) make an evaluation go further there, and J =
	// 100 has a third of the time J = 200 has (20 ms against 60). From
	// there to dueTaperJobs it grows as J^tardinessGrowth (1.8 times at
	// J = 200). Measured at the default effort: 14 ms at J = 100 and 53
	// to 54 ms at J = 200 (docs/solver-at-scale-log.md).
	dueTardinessEvaluations = 2_250
	// tardinessGrowth is the power of J by which the tardiness budget
	// grows from dueEvaluationsJobs to dueTaperJobs (2^0.85 = 1.80 at
	// J = 200). Once an MPS run cost a fifth less, J = 200 had the time:
	// on the unseen seeds 10 to 13 (J = 200, 40 base-case and 20
	// second-setting instances, references from solver.BestKnown at
	// 100,000 evaluations) avg_tardiness went from 1.0153 / 1.0122 to
	// 1.0098 / 1.0081 and weighted_tardiness from 1.0158 / 1.0126 to
	// 1.0105 / 1.0068 (2 times: 1.0096 / 1.0067 and 1.0088 / 1.0058,
	// but 57 to 60 ms, at the bar).
	tardinessGrowth = 0.85
	dueTaperJobs    = 200
	// dueFlatTimeJobs is the size from which, below dueEvaluationsJobs,
	// the budget on tardy jobs and on tardiness alone falls as 1/J, the
	// time about what J = 100 takes, rather than as 1/sqrt(J) (half as
	// much search at J = 50 as J = 100's time allows); below it, 1/sqrt(J)
	// again. Under about 26 jobs plateauSearchPasses * J^2 bounds the
	// budget before either. On seed 41's base case at J = 50, instance 1
	// (seeds 38 to 41 were never used to tune the search), FLEX had
	// weighted tardy jobs 1.105 times the best known, which 1.2 times the
	// budget finds. Measured at the default effort, four seeds of the
	// kicks, summed excess over the best known of 30 cells at J = 50
	// (seeds 1, 10 to 13 and 20 to 25, both settings, and 38 to 41;
	// docs/solver-at-scale-log.md, session 50): weighted tardy jobs 0.0604
	// -> 0.0379, avg_tardiness 0.0230 -> 0.0137, weighted tardiness 0.0138
	// -> 0.0092, tardy jobs 0.0000 both; J = 20 the same (the bound).
	dueFlatTimeJobs = 50
	// slaPreJobs is the number of jobs from which SLA cost skips the
	// pre-phase (Flex.Solve: a tenth of the budget on the J = 10 search
	// before the searches at scale) and gives its tenth to the searches.
	// There the level search takes the targets the best order meets and
	// builds its own order from them, so what adjacent swaps change in
	// the best order matters little. Measured at the default effort,
	// SLA cost, eight seeds of the kicks, summed excess over the best
	// known (docs/solver-at-scale-log.md, session 46): 22 cells at
	// J = 200 0.1523 -> 0.1270 (cells past 1% 4 -> 1), at J = 100
	// 0.1167 -> 0.1045; not used to choose it, seeds 26 to 29 at J = 200
	// 0.0621 -> 0.0600, 30 to 33 0.0940 -> 0.0914, 34 and 35 0.0687 ->
	// 0.0625, seeds 28 and 29 at J = 100 0.0138 -> 0.0096. At J = 50
	// (22 cells, four seeds) it did worse, 0.0437 -> 0.0510. Up to 3%
	// more time at J = 200 and 4% at J = 100 (BenchmarkSolve, the two in
	// turn): the level search's schedules cost more than the pre-phase's.
	slaPreJobs = 100
	// criticalEvaluations is the budget of criticalSearch (maxima past
	// maxExhaustiveSearchJobs) up to dueTaperJobs jobs: at J = 200 it
	// converges within 200 schedules on the committed reference sets.
	// Past dueTaperJobs it falls as 1/J^2 (criticalBudget), so that a
	// J = 1,000 solve stays in milliseconds.
	criticalEvaluations = 400
	// convexSearchJobs is the J from which the default effort skips the
	// local search on objectives without plateaus (response time and
	// stretch; effort 2 and more still search). There it bought at most
	// 0.01% on the FLEX 4.1 instances (committed references, J = 100 and
	// 200, both settings: avg_response_time, weighted_response_time and
	// avg_stretch, average and worst ratio within 0.0001 of the search's,
	// one worst ratio 0.0009) for three to four times the solve's time
	// (0.8-1.5 ms against 0.2-0.6 ms), and the service's epochs, two such
	// solves of some 200 jobs each, spent a sixth of their CPU on it. At
	// J = 50 it still buys 0.1-0.3%.
	convexSearchJobs = 100
	// maxExhaustiveSearchJobs is the largest J at which sums of deadline
	// penalties use the J = 10 search (improve: every insertion and swap,
	// sacrifice moves, kicks); past it dueSearch takes over.
	maxExhaustiveSearchJobs = 12
	// defaultDPCells bounds the non-convex knapsack DP.
	defaultDPCells = 50_000_000
	// improveTol is the relative improvement a local-search move must make
	// to be kept; it stops the search cycling on floating-point noise.
	improveTol = 1e-12
)

// Solve implements Solver.
func (f Flex) Solve(p Problem) (Result, error) {
	in, err := newInstance(p)
	if err != nil {
		return Result{}, err
	}
	ev := newEvaluator(in)
	ev.serial = f.serial
	n := len(in.jobs)
	// atScale: sums of deadline penalties (ev.deadlines) past the J = 10
	// search, which dueSearch takes over.
	atScale := ev.deadlines && n > maxExhaustiveSearchJobs
	// The dispatch orders (ATC and modified due date, O(J^2) each) depend
	// on the instance alone: on the search at scale they are built on a
	// goroutine of their own while the other candidates are made and
	// scored, and taken in their place in the list.
	dispatch := in.dispatchOrders
	if atScale && !ev.serial {
		done := make(chan []ordering, 1)
		go func() { done <- in.dispatchOrders() }()
		dispatch = sync.OnceValue(func() []ordering { return <-done })
	}
	var cands []Candidate
	var tried []scoredOrder
	try := func(o ordering) {
		// Many classical orders coincide (every cap equal to S makes the
		// cap-aware variants the plain ones): score each distinct order once.
		for _, t := range tried {
			if slices.Equal(t.o.order, o.order) {
				return
			}
		}
		s := ev.score(o.order)
		if p.Options.Explain {
			cands = append(cands, Candidate{Scheme: o.scheme, Value: s.value})
		}
		tried = append(tried, scoredOrder{o, s})
	}
	generic, stats := in.genericOrder(p.Options.DPCells)
	first := append(generic, in.classicalOrders()...)
	if n >= parallelScoreJobs && !ev.serial {
		// One schedule takes milliseconds here: score the distinct
		// candidates two at a time, then take them in order, as try would.
		tried = append(tried, ev.scoreDistinct(first)...)
		if p.Options.Explain {
			for _, t := range tried {
				cands = append(cands, Candidate{Scheme: t.o.scheme, Value: t.s.value})
			}
		}
		first = nil
	}
	for _, o := range first {
		try(o)
	}
	// SLA cost alone at scale goes without admission orders: they judge
	// a job by its first step's deadline alone, and the level search
	// (dueSearch) chooses every job's step from the start it is given.
	// Without them the search did better from the other candidates, and
	// the 6 J schedules they cost (a fifth of a solve at J = 200) are
	// saved: SLA cost's summed excess over the best known on the unseen
	// seeds 10 to 13 (six cells, J = 50 to 200), four seeds of the
	// walks' kicks, 0.084 / 0.079 / 0.080 / 0.083 -> 0.075 / 0.074 /
	// 0.075 / 0.078 (docs/solver-at-scale-log.md, item 3).
	if ev.step && len(in.jobs) <= maxAdmissionJobs && !(ev.slaOnly && atScale) {
		for _, o := range ev.admissionOrders() {
			try(o)
		}
	}
	if ev.deadlines {
		for _, o := range ev.sacrificeOrders() {
			try(o)
		}
		if atScale {
			for _, o := range dispatch() {
				try(o)
			}
		}
	}
	if in.agg == penalty.Max {
		best := tried[0]
		for _, t := range tried[1:] {
			if t.s.less(best.s) {
				best = t
			}
		}
		for _, o := range ev.thresholdOrders(best.s.value) {
			try(o)
		}
	}
	// Stable: among equal scores the earlier candidate (generic first) wins.
	sort.SliceStable(tried, func(a, b int) bool { return tried[a].s.less(tried[b].s) })
	best := tried[0]
	budget := p.Options.SearchEvaluations
	switch {
	case budget != 0:
	case p.Options.Effort == FastestEffort:
		budget = -1
	case p.Options.Effort <= DefaultEffort && !ev.plateau && n >= convexSearchJobs:
		// Response time and stretch from convexSearchJobs jobs: the
		// candidate orders are the answer at the default effort.
		budget = -1
	default:
		budget = ev.defaultBudget(atScale) * max(DefaultEffort, p.Options.Effort)
	}
	if budget > 0 && n > 1 {
		improved := best
		if atScale {
			// A tenth of the budget on the J = 10 search from the best
			// candidates and the deadline orders (adjacent swaps first,
			// which repair deadline orders cheaply), the rest at scale;
			// on SLA cost from slaPreJobs jobs all of it at scale.
			pre := budget / 10
			if ev.slaOnly && n >= slaPreJobs {
				pre = 0
			}
			if pre > 0 {
				if r := ev.improve(tried, pre, true); r.s.less(best.s) {
					best = r
				}
			}
			improved = ev.dueSearches(best, tried, budget-pre)
		} else {
			improved = ev.improve(tried, budget, false)
			if in.agg == penalty.Max && n > maxExhaustiveSearchJobs {
				// On a maximum past J = 12 the general search's budget
				// is less than one pass of its neighbourhoods; moves of
				// the job that attains the maximum converge in a few
				// hundred schedules (docs/solver-at-scale-log.md).
				cb := criticalBudget(n) * max(DefaultEffort, p.Options.Effort)
				o, s, used, _ := ev.criticalSearch(improved.o.order, &improved.s, cb)
				o, s = ev.iterateCriticals(o, s, used, criticalIterated(n, in.deepCritical())*cb)
				improved = improved.beatenBy(o, s, "+critical")
			}
		}
		if improved.s.less(best.s) {
			best = improved
		}
		if p.Options.Explain {
			cands = append(cands, Candidate{Scheme: improved.o.scheme, Value: improved.s.value})
		}
	}
	plan := mps.Pack(in.mpsInput(), best.o.order)
	res := in.result("flex", best.o.scheme, plan, best.o.order, true)
	res.Candidates = cands
	stats.Evaluations = ev.evaluations + 1
	res.Stats = stats
	return res, nil
}

// parallelScoreJobs is the number of jobs from which Solve scores its first
// candidate orders two at a time (scoreDistinct): a schedule of 2,000 jobs
// takes about a millisecond, and a second evaluator then pays for itself.
const parallelScoreJobs = 2_000

// scoreDistinct scores the distinct orders of os, in os's order (the first
// of equal orders kept), as many at once as there are evaluators: this one
// and a second of its own. The scores are what scoring them one by one
// gives; the evaluations are counted on ev.
func (ev *evaluator) scoreDistinct(os []ordering) []scoredOrder {
	var distinct []scoredOrder
	for _, o := range os {
		if !slices.ContainsFunc(distinct, func(t scoredOrder) bool { return slices.Equal(t.o.order, o.order) }) {
			distinct = append(distinct, scoredOrder{o: o})
		}
	}
	other := newEvaluator(ev.in)
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 1; i < len(distinct); i += 2 {
			distinct[i].s = other.score(distinct[i].o.order)
		}
	})
	for i := 0; i < len(distinct); i += 2 {
		distinct[i].s = ev.score(distinct[i].o.order)
	}
	wg.Wait()
	ev.evaluations += other.evaluations
	return distinct
}

// defaultBudget is the local search's default budget in MPS evaluations for
// n jobs: about searchJobEvaluations job-evaluations, so that the search
// costs about the same at every J; more on plateau objectives with few jobs
// (see plateauSearchFactor); and, for sums of deadline penalties past
// maxExhaustiveSearchJobs (the search at scale, dueSearch), dueEvaluations
// at 100 jobs (dueTardyEvaluations on tardy jobs alone), scaled as below:
// tens of milliseconds at J = 100 to 200 (docs/solver-at-scale.md has what
// it buys).
func (ev *evaluator) defaultBudget(atScale bool) int {
	n, plateau := len(ev.in.jobs), ev.plateau
	if atScale {
		// flatFrom is the size from which the evaluations stop falling
		// as 1/sqrt(J).
		due, flatFrom := dueEvaluations, dueTaperJobs
		switch {
		case ev.tardyOnly:
			due, flatFrom = dueTardyEvaluations, dueEvaluationsJobs
		case ev.tardinessOnly:
			due, flatFrom = dueTardinessEvaluations, dueEvaluationsJobs
		}
		// Up to dueTaperJobs the evaluations fall as 1/sqrt(J), so the
		// time grows about as sqrt(J) (a schedule costs about J log J);
		// past it as 1/J^2, so that the time falls again towards the
		// J = 1,000 bar of the step metrics. On tardy jobs they stay
		// flat from dueEvaluationsJobs to dueTaperJobs instead: most of
		// that search is the two keys' exchanges, on two goroutines, and
		// at J = 200 it took 23 ms against a bar of 60 with its first
		// pass unfinished (docs/solver-at-scale-log.md: 1.41 times the
		// budget there took the summed excess over the best known of the
		// 10 cells at J = 200 from 0.273 to 0.211, twice to 0.155).
		// Below dueEvaluationsJobs, on tardy jobs and tardiness alone,
		// they fall as 1/J down to dueFlatTimeJobs, then as 1/sqrt(J).
		e := float64(due) * math.Sqrt(dueEvaluationsJobs/float64(min(n, flatFrom)))
		if (ev.tardyOnly || ev.tardinessOnly) && n < dueEvaluationsJobs {
			e *= math.Sqrt(dueEvaluationsJobs / float64(max(n, dueFlatTimeJobs)))
		}
		if ev.tardinessOnly && n > dueEvaluationsJobs {
			e *= math.Pow(float64(min(n, dueTaperJobs))/dueEvaluationsJobs, tardinessGrowth)
		}
		// SLA cost from budgetBoundJobs jobs takes all of e, uncut. It was
		// cut to 0.7 there (at J = 200 the whole budget took 72 ms
		// against a bar of 60), then to 0.875 once SLA cost went without
		// the admission orders (Flex.Solve); whole, it takes about 52 ms
		// at J = 200 (vCPUs alike), as tardiness does, within the bar.
		// Measured at the default effort, summed excess over the best
		// known, eight seeds of the kicks (docs/solver-at-scale-log.md,
		// session 46), 0.875 -> the whole budget: 22 cells at J = 200
		// 0.1731 -> 0.1523 (cells past 1% 6 -> 4; 1.1 and 1.2 times it
		// 0.1296 and 0.1063, at 58 ms and more); seeds 26 to 29 and 30
		// to 33, not used to choose it, 0.0736 -> 0.0621 and 0.1086 ->
		// 0.0940. BenchmarkSolve, the two in turn: 1.13 times the time.
		if ev.tardyOnly && (n >= budgetBoundJobs || n >= dueEvaluationsJobs && ev.in.unweightedTardy()) {
			e *= tardyBoundGrowth
		}
		if n > dueTaperJobs {
			f := float64(dueTaperJobs) / float64(n)
			e *= f * f
		}
		return min(plateauSearchPasses*n*n, max(minSearchEvaluations, int(e)))
	}
	if !plateau && n > searchJobEvaluations {
		// Past searchJobEvaluations jobs the budget would be under one
		// schedule; the minimum of minSearchEvaluations bought adjacent
		// swaps at the head of the order that found nothing on the
		// convex objectives at J = 10,000 and 100,000 and cost 40% of a
		// J = 100,000 solve (docs/request-cost.md).
		return 0
	}
	budget := min(maxSearchEvaluations, max(minSearchEvaluations, searchJobEvaluations/n))
	if plateau && n <= maxPlateauBoostJobs {
		// Step, tardiness and minimax objectives tie on plateaus where
		// local search stalls; on small problems the iterated kicks get
		// more room (on large ones a schedule costs too much for it).
		budget = min(budget*plateauSearchFactor, plateauSearchPasses*n*n)
	}
	return budget
}

// criticalBudget is criticalSearch's budget for n jobs: criticalEvaluations
// up to dueTaperJobs, falling as 1/J^2 past it (16 schedules at J = 1,000).
func criticalBudget(n int) int {
	if n <= dueTaperJobs {
		return criticalEvaluations
	}
	f := float64(dueTaperJobs) / float64(n)
	return max(minSearchEvaluations, int(criticalEvaluations*f*f))
}

// criticalIterated is how many times criticalBudget the critical search
// and its iteration (iterateCritical) spend together on n jobs: twice up to
// J = 50, six times at J = 100, twelve at J = 200 and past it (where
// criticalBudget itself falls as 1/J^2). On the committed references,
// refreshed from FLEX's answers at effort 16, every maximum is then within
// 0.6% of the best known on average at J = 20 to 200; twice at J = 200
// left max_weighted_lateness at 1.012.
//
// Eight times at J = 200, not four: on seed 21's base case (a seed the
// search was not tuned on, references at effort 20) max_weighted_lateness
// read 1.0514, one instance at 1.254 of the best known, its maximum
// balanced over dozens of jobs where four times the budget stopped; at
// eight times 1.0021 / 1.008 (six: 1.0092 / 1.043), and no cell of the
// eight maxima on seeds 1, 20 and 21 at J = 200 worse (seed 1's second
// setting max_weighted_response_time 1.0028 -> 1.0011,
// max_weighted_lateness 1.0049 -> 1.0038). Time: the maxima at J = 200
// from 15 to 20 ms to 29 to 36, max_lateness at J = 1,000 from 9 to 12 to
// 14 ms (docs/solver-at-scale-log.md, session 42).
//
// Twelve times at J = 200, not eight: the time was there (29 to 34 ms
// against a bar of 60). On the deadline maxima at J = 200, 22 cells (seeds
// 1, 10 to 13 and 20 to 25, both settings, references at effort 10 on
// seed 1 and 20 on the others), the summed excess over the best known
// went 0.1064 -> 0.0936 (max_lateness), 0.1074 -> 0.0942 (max_tardiness),
// 0.1058 -> 0.0928 (max_weighted_lateness) and 0.1130 -> 0.1025
// (max_weighted_tardiness), cells past 1% 6 -> 3; on seeds 26 and 27, not
// used to choose it, 0.0271 -> 0.0238, 0.0253 -> 0.0220, 0.0154 -> 0.0126
// and 0.0171 -> 0.0148 (seed 27's base case max_lateness 1.0155 ->
// 1.0124). Sixteen times did better again but took max_weighted_lateness
// and max_weighted_tardiness at J = 200 to 62 to 65 ms. Time: the maxima
// at J = 200 from 27 to 34 ms to 40 to 48, max_lateness at J = 1,000 from
// 12 to 14 ms to 17 (docs/solver-at-scale-log.md, session 43).
//
// Six times at J = 100, not twice: on seed 22's base case (a seed the
// search was not tuned on) max_tardiness read 1.0195 / 1.100 and
// max_lateness 1.0095 / 1.094, at six times 1.0000 / 1.000 both (four
// times: 1.0090 / 1.090), and no cell of the eight maxima on seeds 1 and
// 20 to 23 at J = 100 worse (eight times did a little better still but
// took the J = 100 maxima to 14-19 ms, near the bar of 20). Time: the
// maxima at J = 100 from 6 to 12-16 ms; J = 50 as before (twice), and
// between 50 and 100 jobs in proportion.
//
// With deep (the maxima that read a deadline or a weight:
// instance.deepCritical) twelve times at J = 100 and sixteen from J = 200,
// in proportion between. Since their moves are scored by estimate
// (incumbent.try, session 52) they take 0.52 to 0.76 times as long, and
// the time that frees buys this: measured on 26 cells (seeds 1, 10 to 13,
// 20 to 25, 46 and 47, both settings; references at effort 10 on seed 1
// and 20 on the others), summed excess over the best known at J = 100
// max_tardiness 0.0206 -> 0.0098 (seed 46's base case 1.0100 / 1.083 ->
// 1.0000 / 1.000), max_lateness 0.0245 -> 0.0038 (there 1.0017 / 1.017),
// max_weighted_tardiness 0.0027 -> 0.0010, max_weighted_lateness 0.0029
// -> 0.0024, max_weighted_response_time 0.0077 -> 0.0013; at J = 200
// 0.1027 -> 0.0775, 0.1021 -> 0.0803, 0.0916 -> 0.0771, 0.0956 -> 0.0835
// and 0.0291 -> 0.0250. Time: those maxima at J = 100 10.5 to 11.7 ms
// (9.5 to 11.5 before session 52), at J = 200 25 to 31 (33 to 39). The
// others (max_response_time, makespan, max_stretch) gained little from
// the estimates (0.90 to 0.95 times the time) and nothing from twice the
// iterations at J = 100 (max_stretch 0.0041 -> 0.0033, the others at the
// best known already), which would take them from 8.4 to 14 ms there.
func criticalIterated(n int, deep bool) int {
	switch {
	case n <= 50:
		return 2
	case n <= 100 && deep:
		return 2 + 10*(n-50)/50
	case n <= 100:
		return 2 + 4*(n-50)/50
	case deep:
		return min(16, 12+4*(n-100)/100)
	default:
		return min(12, 6+6*(n-100)/100)
	}
}

// deepCritical reports whether every metric of the instance is a maximum
// that reads a deadline or a weight: those criticalIterated gives more
// iterations.
func (in *instance) deepCritical() bool {
	for _, m := range in.distinctMetrics() {
		info, _ := penalty.Lookup(m)
		if info.Aggregate != penalty.Max || !info.NeedsDeadline && !info.UsesWeight {
			return false
		}
	}
	return true
}

// scoredOrder is a candidate order with its MPS score.
type scoredOrder struct {
	o ordering
	s score
}

// searchStarts is how many of the best distinct candidates local search
// starts from: on step metrics the best candidate often sits on a plateau
// that a slightly worse one does not. Sums of deadline penalties add the
// two earliest-deadline starts (see improve); a third best candidate then
// costs more budget than it brings (at J = 20 the starts share 2,000
// schedules and would each stop short of one pass over the neighbourhoods:
// SLA cost came out 8.7% worse on average with three).
const searchStarts = 2

// improve runs local search from the best few distinct candidates (sorted
// best first), and, on sums of deadline penalties, from the earliest-
// deadline orders too, however they score; then it spends what is left of
// the budget on iterated local search: two random swaps from the best order
// so far, then local search again, kept when better. The kicks use a
// generator seeded by the instance size, so the result is still a function
// of the input.
//
// Why the deadline starts: on tardiness the candidates that score best
// (the generic order first) put the short jobs early, and the optimum often
// does not; it is EDD with a few jobs moved, which local search from EDD
// reaches and local search from the generic order does not (FLEX 4.1 base
// case, seed 1, instance 20: EDD scores 9.00, the generic order 5.31, the
// optimum 5.05; local search from EDD finds 5.05, from the generic order
// it stays at 5.31).
//
// With atOnce (the pre-phase of the search at scale) the starts are
// searched in two groups at once, every other start in each, each group
// with half the budget (descendAtOnce).
func (ev *evaluator) improve(sorted []scoredOrder, budget int, atOnce bool) scoredOrder {
	// Moves scored from a recording of the incumbent (localSearch): the
	// same answers (the study's CSVs at J = 10 to 200, byte for byte),
	// 6% fewer instructions at J = 10 (SLA cost, tardiness, tardy jobs,
	// max lateness) and at J = 20 and 50 (response time, stretch, max
	// lateness; 9% on the convex metrics alone). Not in the search at
	// scale's pre-phase (atOnce), whose descents from the deadline orders
	// keep most of their first moves and record each: there it cost 0.6%
	// more of a solve at J = 200 (scripts/instructions.sh).
	resume := !atOnce
	var starts []scoredOrder
	add := func(c scoredOrder) {
		for _, s := range starts {
			if slices.Equal(s.o.order, c.o.order) {
				return
			}
		}
		starts = append(starts, c)
	}
	for _, c := range sorted {
		if len(starts) == searchStarts {
			break
		}
		add(c)
	}
	if ev.deadlines && ev.in.agg == penalty.Sum {
		for _, c := range sorted {
			if c.o.scheme == "edd" || c.o.scheme == "edd_slack" {
				add(c)
			}
		}
	}
	var best scoredOrder
	var spent int
	if atOnce && len(starts) > 1 {
		best, spent = ev.descendAtOnce(starts, sorted[0], budget)
	} else {
		best, spent = ev.descend(starts, sorted[0], budget, resume)
	}
	n := len(best.o.order)
	rng := ev.rng(0x5eed)
	kick := make([]int, n)
	// The walk starts at the best order and moves to each new local
	// optimum whose objective is no worse, ignoring the tie-breaker: on a
	// plateau the tie-breaker can point away from the next step down, and
	// walking the plateau finds it where always restarting from the best
	// does not.
	walk := best
	for spent+2*n < budget {
		copy(kick, walk.o.order)
		for range 2 {
			a, b := rng.IntN(n), rng.IntN(n)
			kick[a], kick[b] = kick[b], kick[a]
		}
		s0 := ev.score(kick)
		order, s, used := ev.localSearch(kick, s0, budget-spent-1, resume)
		spent += used + 1
		walk, best = walkTo(walk, best, order, s)
	}
	return best
}

// walkTo is one step of an iterated local search: the walk moves to the new
// local optimum o, scored s, when its objective is no worse than the walk's
// (the tie-breaker ignored), and best becomes the walk when s beats it. The
// scheme is best's, marked "+iterated" once.
func walkTo(walk, best scoredOrder, o []int, s score) (scoredOrder, scoredOrder) {
	if cmpTol(s.value, walk.s.value) <= 0 {
		walk = scoredOrder{ordering{strings.TrimSuffix(best.o.scheme, "+iterated") + "+iterated", o}, s}
	}
	if s.less(best.s) {
		best = walk
	}
	return walk, best
}

// descend runs local search from each of starts in turn, each with an
// equal share of what is left of budget, and returns the best order found
// if it beats best (else best) and the evaluations spent; resume is
// localSearch's.
func (ev *evaluator) descend(starts []scoredOrder, best scoredOrder, budget int, resume bool) (scoredOrder, int) {
	spent := 0
	for x, st := range starts {
		share := (budget - spent) / (len(starts) - x)
		order, s, used := ev.localSearch(st.o.order, st.s, share, resume)
		spent += used
		if s.less(best.s) {
			best = scoredOrder{ordering{st.o.scheme + "+local_search", order}, s}
		}
	}
	return best, spent
}

// descendAtOnce is descend with the starts in two groups searched at once
// (atOnce), every other start in each, each group with half the budget:
// the same work as descend in about half the time. The pre-phase of the
// search at scale ran alone on one core, a tenth of the budget: at
// J = 200 a tenth of a solve's time. A/B medians of five on the 2-core
// machine, the same binary with and without: SLA cost 0.86 and
// avg_tardiness 0.91 times the time at J = 200, 0.97 at J = 100, with the
// same answers on SLA cost and tardy jobs and within 0.0004 on
// tardiness (docs/solver-at-scale-log.md, time).
func (ev *evaluator) descendAtOnce(starts []scoredOrder, best scoredOrder, budget int) (scoredOrder, int) {
	var res [2]struct {
		best  scoredOrder
		spent int
	}
	ev.atOnce(2, func(e *evaluator, g int) {
		var group []scoredOrder
		for x := g; x < len(starts); x += 2 {
			group = append(group, starts[x])
		}
		res[g].best, res[g].spent = e.descend(group, best, budget/2, false)
	})
	spent := 0
	for _, r := range res {
		spent += r.spent
		if r.best.s.less(best.s) {
			best = r.best
		}
	}
	return best, spent
}

// mpsInput is the instance as package mps takes it.
func (in *instance) mpsInput() mps.Input {
	return mps.Input{Slots: in.slots, Now: in.now, Min: in.min, Max: in.max, Work: in.work}
}

// score orders schedules: by objective value, then, for step metrics where
// orders tie on plateaus, by a ramp relaxation of the steps (each step's
// height times how late the job is past that step's deadline, plus a small
// pull towards earlier completions). The relaxation gives local search a
// slope to follow across a plateau towards the next step down.
type score struct{ value, second float64 }

func (a score) less(b score) bool {
	if c := cmpTol(a.value, b.value); c != 0 {
		return c < 0
	}
	return cmpTol(a.second, b.second) < 0
}

// lessBy is less with tol (relative) in place of improveTol, and without
// cmpTol's care for infinities (sums of finite penalties).
func (a score) lessBy(b score, tol float64) bool {
	if a.value < b.value-tol*math.Abs(b.value) {
		return true
	}
	if a.value > b.value+tol*math.Abs(b.value) {
		return false
	}
	return a.second < b.second-tol*math.Abs(b.second)
}

// cmpTol compares x and y, treating values within improveTol (relative) as
// equal; infinities compare exactly (Inf - Inf would be NaN).
func cmpTol(x, y float64) int {
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return cmp.Compare(x, y)
	}
	tol := improveTol * math.Max(math.Abs(x), math.Abs(y))
	switch {
	case x < y-tol:
		return -1
	case x > y+tol:
		return 1
	}
	return 0
}

// evaluator scores orders by MPS without allocating in steady state.
type evaluator struct {
	in          *instance
	input       mps.Input
	packer      mps.Packer
	completions []float64
	// step is true when some metric is a step function; plateau when the
	// objective is flat over many orders (steps, tardiness, which is 0 for
	// every early job, and any max, which only its worst job moves).
	step, plateau bool
	// deadlines is true for sums of plateau metrics (tardiness and the step
	// metrics, all with deadlines): their optima often sacrifice jobs.
	deadlines bool
	// tardyOnly is true for sums of (weighted) tardy jobs only: what
	// matters is which jobs are late, not by how much (swapSearch).
	tardyOnly bool
	// slaOnly is true for sums of SLA cost only (levelSearch).
	slaOnly bool
	// tardinessOnly is true for sums of (weighted) tardiness only:
	// dueSearch skips the split searches (window search does better).
	tardinessOnly bool
	// weightedTardiness is true for sums of weighted tardiness only
	// (farLate).
	weightedTardiness bool
	evaluations       int
	// guessed counts the terms of the guesses made (guessMoves), which
	// the searches' budgets count too (incumbent.spent).
	guessed int
	// serial keeps on this goroutine what Solve and exchangeKeys would
	// otherwise run at once (tests compare the two: the answers are the
	// same).
	serial bool
	// rampKind is each job's tie-breaker form, resolved once: score runs
	// thousands of times per solve.
	rampKind []rampKind
	// margin is the share of the time to a deadline by which the
	// tie-breaker anticipates it (early); 0 below the search at scale.
	margin float64
	// The incumbent of the last setBase: its score and each job's penalty
	// and tie-breaker, for scoreEstimate.
	base              score
	basePen, baseRamp []float64
	// baseTop is, on a maximum, the jobs with the largest penalties in
	// the incumbent (basePen), the largest first: the maximum of the jobs
	// an estimate did not schedule is the first of them it did not
	// (maxEstimate). touched marks the jobs an estimate scheduled, those
	// holding touchedGen.
	baseTop    []int
	touched    []uint32
	touchedGen uint32
	// baseAt is each job's completion in the incumbent; baseMargin the
	// margin its terms were computed with (setBase).
	baseAt     []float64
	baseMargin float64
	// baseAround is each job's penalty and tie-breaker near its
	// completion in the incumbent, linear (aroundOf).
	baseAround []around
	// dues is each job's penalty in the form delta computes fast (the
	// search at scale only).
	dues []dueTerm
	// baseHot says which jobs the incumbent finishes late, or past their
	// deadline less the margin (see mayGain).
	baseHot []bool
	searchSettings
	// descent is levelDescent's workspace.
	descent descentSpace
}

// searchSettings are what tells the searches run at once apart
// (dueSearches, searchHalves): one value, so that a search run on an
// evaluator of the caller's can put them all back after it.
type searchSettings struct {
	// walks is how many iterated walks run at once (see walks): one in
	// each of dueSearches' searches, which run at once themselves.
	walks int
	// noSplit skips the split descent on SLA cost (dueSearches).
	noSplit bool
	// byDeadline orders the level search's targeted jobs by their
	// targets' deadlines alone, without levelJit and levelFast's shifts
	// (searchHalves' second half, second search).
	byDeadline bool
	// farJumps lets dueSearch's window descent jump as far as the order
	// is long rather than maxJump (dueSearches' second search on
	// tardiness), and from budgetBoundJobs jobs move a job to any
	// position, not only within searchWindow or by a jump.
	//
	// Why every position from budgetBoundJobs jobs: on weighted
	// tardiness at J = 200, the unseen seed 36's base case, instance 1,
	// every search FLEX ran (at every effort up to 16) ended at 0.4393
	// to 0.4396, a local optimum of every insertion, where a descent over
	// every insertion from EDD, MDD, SRPT or Smith's order reached 0.3473
	// to 0.3477 (the best known): the jumps (a doubling distance) skip
	// the moves that lead there. The descent guesses each job's move
	// (guessBest) and its sweeps already run the order's length, so the
	// other targets cost a term each; the search's instructions fell
	// (the guesses count towards the budget), 0.97 times at J = 200 and
	// 0.95 to 0.96 at J = 1,000 on both tardiness metrics. Measured at
	// the default effort, summed excess over the best known, weighted
	// tardiness at J = 200, four seeds of the kicks / the default seed:
	// seeds 36 and 37 (both settings, references at effort 20, not used
	// to choose anything before) 0.0884 / 0.0905 -> 0.0289 / 0.0303
	// (seed 36's base case 1.0679 -> 1.0107, its worst instance 1.269 ->
	// 1.026); the 22 tuning cells 0.1368 / 0.1336 -> 0.1432 / 0.1382;
	// seeds 26 to 29 0.0480 / 0.0417 -> 0.0471 / 0.0437. avg_tardiness
	// the same within 0.002 on each set. In both of the first half's
	// searches, the tuning cells and seeds 26 to 29 did worse (0.1631,
	// 0.0618); below budgetBoundJobs, at J = 100 with SRPT's search,
	// weighted tardiness did worse (22 cells 0.0399 -> 0.0518, one past
	// 1%) (docs/solver-at-scale-log.md, session 49).
	farJumps bool
	// kicks is added to every random stream of the evaluator's (rng):
	// two searches alike from one order (searchHalves' second half) then
	// kick apart.
	kicks uint64
}

// rampKind selects the form of a job's tie-breaker (see ramp).
type rampKind uint8

const (
	rampWeightedCompletion rampKind = iota
	rampTardy
	rampWeightedTardy
	rampSLA
	rampPenalty
	// rampAnticipate: tardiness at scale, weighted time past the margin
	// before the deadline (see evaluator.early).
	rampAnticipate
)

func newEvaluator(in *instance) *evaluator {
	ev := &evaluator{in: in, input: in.mpsInput(), completions: make([]float64, len(in.jobs)), searchSettings: searchSettings{walks: walks}}
	ev.packer.Bind(ev.input)
	ev.rampKind = make([]rampKind, len(in.jobs))
	for k, m := range in.metrics {
		switch {
		case m == penalty.TardyJobs:
			ev.rampKind[k] = rampTardy
		case m == penalty.WeightedTardyJobs:
			ev.rampKind[k] = rampWeightedTardy
		case m == penalty.SLACost:
			ev.rampKind[k] = rampSLA
		case in.agg == penalty.Max:
			ev.rampKind[k] = rampPenalty
		}
	}
	ev.plateau = in.agg == penalty.Max
	for _, m := range in.distinctMetrics() {
		info, _ := penalty.Lookup(m)
		ev.step = ev.step || info.Step
		ev.plateau = ev.plateau || info.Step || info.NeedsDeadline && m != penalty.AvgLateness
	}
	ev.deadlines = ev.plateau && in.agg == penalty.Sum
	sum := in.agg == penalty.Sum
	ev.tardyOnly, ev.slaOnly, ev.tardinessOnly, ev.weightedTardiness = sum, sum, sum, sum
	for _, m := range in.distinctMetrics() {
		ev.weightedTardiness = ev.weightedTardiness && m == penalty.WeightedTardiness
		ev.tardyOnly = ev.tardyOnly && (m == penalty.TardyJobs || m == penalty.WeightedTardyJobs)
		ev.slaOnly = ev.slaOnly && m == penalty.SLACost
		ev.tardinessOnly = ev.tardinessOnly && (m == penalty.AvgTardiness || m == penalty.WeightedTardiness)
	}
	if ev.deadlines && len(in.jobs) > maxExhaustiveSearchJobs {
		ev.margin = anticipation
		for k, m := range in.metrics {
			if m == penalty.AvgTardiness || m == penalty.WeightedTardiness {
				ev.rampKind[k] = rampAnticipate
			}
		}
		ev.dues = make([]dueTerm, len(in.jobs))
		for k, m := range in.metrics {
			ev.dues[k] = ev.dueTermOf(k, m)
		}
	}
	return ev
}

// dueTerm is a job's penalty and tie-breaker pull when both are one
// deadline's (tardiness and tardy jobs, plain or weighted) or an SLA's
// steps: what evaluator.delta computes without the general forms'
// switches, millions of times per solve. kind dueGeneral leaves them to
// penalty.Func and ramp.
type dueTerm struct {
	kind uint8
	// w weighs the penalty, pw the pull; d is the deadline, e the
	// deadline less the margin (evaluator.early).
	w, pw, d, e float64
	// steps are an SLA's (dueSLA), each with its deadline less the
	// margin.
	steps []slaStep
	// floor is the least penalty the job can have, at any completion
	// (-Inf when it has none, as lateness): what bounds its gain from a
	// move (guessMoves).
	floor float64
}

// slaStep is an SLA step for delta: its deadline d, that less the margin
// e, its penalty p and the increase over the step before, rise.
type slaStep struct{ d, e, p, rise float64 }

const (
	dueGeneral uint8 = iota
	dueTardiness
	dueTardy
	dueSLA
)

// dueTermOf is job k's dueTerm under metric m.
func (ev *evaluator) dueTermOf(k int, m penalty.Metric) dueTerm {
	j := &ev.in.pj[k]
	t := dueTerm{w: 1, pw: j.Weight, d: j.Deadline, e: ev.early(j.Deadline), floor: ev.in.fn[k].At(math.Inf(-1))}
	if math.IsNaN(t.floor) {
		// A weight of 0 times an infinite response time.
		t.floor = math.Inf(-1)
	}
	switch m {
	case penalty.AvgTardiness:
		t.kind = dueTardiness
	case penalty.WeightedTardiness:
		t.kind, t.w = dueTardiness, j.Weight
	case penalty.TardyJobs:
		t.kind, t.pw = dueTardy, 1
	case penalty.WeightedTardyJobs:
		t.kind, t.w = dueTardy, j.Weight
	case penalty.SLACost:
		t.kind = dueSLA
		prev := 0.0
		for _, st := range j.SLA {
			rise := st.Penalty - prev
			if !ev.in.reachable(k, st.Deadline) {
				rise = 0
			}
			t.steps = append(t.steps, slaStep{st.Deadline, ev.early(st.Deadline), st.Penalty, rise})
			prev = st.Penalty
		}
	}
	if t.kind == dueTardy && !ev.in.reachable(k, j.Deadline) {
		t.pw = 0
	}
	// The pull's forms (see pull) must be the ones assumed above.
	switch ev.rampKind[k] {
	case rampAnticipate, rampTardy, rampWeightedTardy:
		if t.kind == dueSLA {
			t.kind = dueGeneral
		}
	case rampSLA:
		if t.kind != dueSLA {
			t.kind = dueGeneral
		}
	default:
		t.kind = dueGeneral
	}
	return t
}

// around says how far a job's completion may move either way from c with
// its penalty and tie-breaker linear in it (left and right, exclusive),
// and their slopes on either side (vl, sl and vr, sr): delta without a
// penalty evaluated, for the guesses (guessMoves).
type around struct{ left, right, vl, sl, vr, sr float64 }

// aroundOf is job k's around at completion c; a job whose dueTerm is
// dueGeneral has none (left = right = 0).
func (ev *evaluator) aroundOf(k int, c float64) around {
	t := &ev.dues[k]
	a := around{left: math.Inf(1), right: math.Inf(1), sl: rampPull, sr: rampPull}
	// bound narrows the room to the breakpoint x.
	bound := func(x float64) {
		if x > c {
			a.right = min(a.right, x-c)
		} else if x < c {
			a.left = min(a.left, c-x)
		} else {
			a.left, a.right = 0, 0
		}
	}
	switch t.kind {
	case dueTardiness:
		bound(t.d)
		bound(t.e)
		if c > t.d {
			a.vl, a.vr = t.w, t.w
		}
		if c > t.e {
			a.sl, a.sr = rampPull+t.pw, rampPull+t.pw
		}
	case dueTardy:
		bound(t.d)
		bound(t.e)
		if c > t.e {
			a.sl, a.sr = rampPull+t.pw, rampPull+t.pw
		}
	case dueSLA:
		for x := range t.steps {
			st := &t.steps[x]
			bound(st.d)
			bound(st.e)
			if c > st.e {
				a.sl += st.rise
				a.sr += st.rise
			}
		}
	default:
		return around{}
	}
	return a
}

// delta is how job k's penalty and tie-breaker change from the incumbent's
// (setBase) when it completes at c instead.
func (ev *evaluator) delta(k int, c float64) (dv, ds float64) {
	t := &ev.dues[k]
	c0 := ev.baseAt[k]
	switch t.kind {
	case dueTardiness:
		dv = t.w * (late(c, t.d) - late(c0, t.d))
	case dueTardy:
		if c > t.d {
			dv = t.w
		}
		if c0 > t.d {
			dv -= t.w
		}
	case dueSLA:
		// The penalty of the last step missed, and the pull of every
		// step (as penalty.Func and pull compute them).
		p, p0, ds := 0.0, 0.0, rampPull*(c-c0)
		for x := range t.steps {
			st := &t.steps[x]
			if c > st.d {
				p = st.p
			}
			if c0 > st.d {
				p0 = st.p
			}
			ds += st.rise * (late(c, st.e) - late(c0, st.e))
		}
		return p - p0, ds
	default:
		return ev.in.fn[k].At(c) - ev.basePen[k], ev.ramp(k, c) - ev.baseRamp[k]
	}
	return dv, rampPull*(c-c0) + t.pw*(late(c, t.e)-late(c0, t.e))
}

// early is deadline d less the evaluator's margin: a share of the time
// from now to d. With a margin, the tie-breaker of the deadline metrics
// counts a job as late from a little before its deadline. Among orders
// equal on the objective, the search then prefers those that keep every
// job clear of its deadline over those that finish favoured jobs
// earliest, which, past a few dozen jobs, leaves the later moves room: on
// 10 instances of the FLEX 4.1 base case at J = 100, the five sums of
// deadline and step penalties went from 1.055 to 1.029 of the best known
// on average (a margin of 0.05 or 0.2 did worse than 0.1).
func (ev *evaluator) early(d float64) float64 {
	return d - ev.margin*(d-ev.in.now)
}

// anticipation is the margin of the search at scale (evaluator.early).
const anticipation = 0.1

// score schedules order and scores it. From the prefix it shares with the
// packer's recording (setBase's, or a search's incumbent's) it resumes that
// run (scoreFrom: the same completions bit for bit, mps.Packer.Resume), so
// the schedules of candidates near the incumbent (repairTarget's, the
// walks') cost what is left of the run, not all of it: on the searches at
// scale 0.97 to 0.99 times the time (BenchmarkSolve), the same answers.
func (ev *evaluator) score(order []int) score {
	if k := ev.packer.RecordedPrefix(order); k > 0 {
		return ev.scoreFrom(order, k)
	}
	ev.evaluations++
	ev.packer.BoundCompletions(order, ev.completions)
	return ev.scoreCompletions()
}

// scoreCompletions scores the schedule whose completions the packer just
// wrote into ev.completions.
func (ev *evaluator) scoreCompletions() score {
	in := ev.in
	v, second := 0.0, 0.0
	if in.agg == penalty.Max {
		v = math.Inf(-1)
	}
	for k, c := range ev.completions {
		p := in.fn[k].At(c)
		if in.agg == penalty.Max {
			v = math.Max(v, p)
		} else {
			v += p
		}
		if ev.plateau {
			second += ev.ramp(k, c)
		}
	}
	return score{v, second}
}

// ramp is the tie-breaker of job k completing at c on a plateau of the
// objective: for a step metric, the steps it has missed and could have met
// (reachable), each weighted by how far past its deadline c lies; for a
// minimax objective, the job's own penalty (the sum of all penalties
// separates orders with the same worst job); for tardiness, its weighted
// completion time. A small pull towards
// earlier completion is added everywhere, so that, all else equal, earlier
// is better.
func (ev *evaluator) ramp(k int, c float64) float64 {
	return ev.rampWith(c, ev.pull(k, c))
}

// rampWith is ramp for a completion c whose pull is known.
func (ev *evaluator) rampWith(c, pull float64) float64 {
	return rampPull*(c-ev.in.now) + pull
}

// rampPull is the tie-breaker's pull towards earlier completion, per
// second.
const rampPull = 1e-6

// reachable reports whether job k can still complete by d: alone at its
// maximum from now (earliest) it would. A step out of reach orders nothing
// (reachableDue, level search's first targets) and pulls nothing (pull).
func (in *instance) reachable(k int, d float64) bool {
	return d >= in.earliest(k)
}

// earliest is job k's earliest completion: alone at its maximum from now.
// Computed where asked rather than kept per job: only the searches on
// deadline metrics ask, and every solve (the epoch path's among them)
// would pay for the slice.
func (in *instance) earliest(k int) float64 {
	return in.now + in.work[k]/float64(in.max[k])
}

// pull is ramp less its pull towards earlier completion. On the deadline
// metrics it is positive only once c passes a deadline less the
// evaluator's margin: the jobs a move can help (evaluator.mayGain). On the
// step metrics a step out of the job's reach (reachable) pulls nothing:
// the job misses it wherever it stands, and pulled forward it only took
// slots from jobs that could still make theirs. Measured on 180 instances
// of unseen seeds 10 to 13 (J = 50 to 200, both settings) against
// references of 100,000 evaluations, summed excess over the six cells:
// weighted tardy jobs 0.090 -> 0.047, tardy jobs 0.015 -> -0.009, SLA
// cost 0.117 -> 0.112 (mean over three seeds of the level walks' kicks;
// docs/solver-at-scale-log.md).
func (ev *evaluator) pull(k int, c float64) float64 {
	in := ev.in
	j := &in.pj[k]
	r := 0.0
	switch ev.rampKind[k] {
	case rampTardy:
		if in.reachable(k, j.Deadline) {
			r += late(c, ev.early(j.Deadline))
		}
	case rampWeightedTardy:
		if in.reachable(k, j.Deadline) {
			r += j.Weight * late(c, ev.early(j.Deadline))
		}
	case rampSLA:
		// A step is reachable (reachable) when due no sooner than the
		// job's earliest completion, computed once for its steps.
		earliest, prev := in.earliest(k), 0.0
		for _, st := range j.SLA {
			if st.Deadline >= earliest {
				r += (st.Penalty - prev) * late(c, ev.early(st.Deadline))
			}
			prev = st.Penalty
		}
	case rampPenalty:
		r += in.fn[k].At(c)
	case rampAnticipate:
		r += j.Weight * late(c, ev.early(j.Deadline))
	default:
		r += j.Weight * (c - in.now)
	}
	return r
}

// late is how far c lies past deadline d, 0 when it does not: math.Max's
// care for NaN and signed zeros made up half of ramp's time.
func late(c, d float64) float64 {
	if c > d {
		return c - d
	}
	return 0
}

// localSearch improves order by first-improvement moves, adjacent swaps
// first, then insertions, then swaps of any two jobs (FLEX section 3 leaves
// the improvement step open; docs/algorithms.md section 4 item 3), and, on
// sums of deadline penalties with at most maxPlateauBoostJobs jobs, when a
// pass of those finds nothing, sacrifice moves; until a whole pass finds
// nothing or the budget of MPS evaluations is spent. It returns the order,
// its score and the evaluations spent.
//
// A sacrifice move sends two jobs to the back of the order, in either
// order, where they run on their minima: giving up two cheap deadlines can
// save an expensive one when neither alone does, which no single move
// shows (FLEX 4.1 base case, seed 2, instance 10, weighted tardy jobs: the
// optimum gives up two jobs of weight 0.165 and 0.020 to keep one of 0.545).
func (ev *evaluator) localSearch(start []int, s score, budget int, resume bool) ([]int, score, int) {
	n := len(start)
	order := append([]int(nil), start...)
	cand := make([]int, n)
	spent := 0
	// Every move changes the order from some position on: with resume
	// the incumbent is recorded, and each move scored from the
	// recording's prefix (scoreResumed), bit for bit what a whole schedule
	// gives (improve says when).
	eval, kept := ev.score, func() {}
	if resume {
		ev.recordOrder(order)
		eval, kept = ev.scoreResumed, func() { ev.recordOrder(order) }
	}
	for improved := true; improved && spent < budget; {
		improved = false
		for i := 0; i+1 < n && spent < budget; i++ {
			order[i], order[i+1] = order[i+1], order[i]
			spent++
			if t := eval(order); t.less(s) {
				s, improved = t, true
				kept()
				continue
			}
			order[i], order[i+1] = order[i+1], order[i]
		}
		for i := 0; i < n && spent < budget; i++ {
			for k := 0; k < n && spent < budget; k++ {
				if k == i || k == i+1 {
					continue // no move, or an adjacent swap already tried
				}
				moveTo(cand, order, i, k)
				spent++
				if t := eval(cand); t.less(s) {
					s, improved = t, true
					copy(order, cand)
					kept()
				}
			}
		}
		for i := 0; i < n && spent < budget; i++ {
			for k := i + 2; k < n && spent < budget; k++ {
				order[i], order[k] = order[k], order[i]
				spent++
				if t := eval(order); t.less(s) {
					s, improved = t, true
					kept()
					continue
				}
				order[i], order[k] = order[k], order[i]
			}
		}
		if !improved && ev.deadlines && ev.in.agg == penalty.Sum && n <= maxPlateauBoostJobs {
			for i := 0; i < n && spent < budget; i++ {
				for k := i + 1; k < n && spent < budget; k++ {
					for _, flip := range [2]bool{false, true} {
						toBack(cand, order, i, k, flip)
						spent++
						if t := eval(cand); t.less(s) {
							s, improved = t, true
							copy(order, cand)
							kept()
							break
						}
					}
				}
			}
		}
	}
	return order, s, spent
}

// recordOrder records order's schedule in the packer for scoreResumed, from
// the first position where it differs from the last recording.
func (ev *evaluator) recordOrder(order []int) {
	if k := ev.packer.RecordedPrefix(order); k > 0 {
		ev.packer.Rerecord(order, k, ev.completions)
	} else {
		ev.packer.Record(order, ev.completions)
	}
}

// scoreResumed is score for an order that shares a prefix with the last
// recording (recordOrder): the schedule resumes from there
// (mps.Packer.Resume), bit for bit what score computes, for the share of
// a schedule after the prefix.
func (ev *evaluator) scoreResumed(order []int) score {
	k := ev.packer.RecordedPrefix(order)
	if k == 0 {
		return ev.score(order)
	}
	ev.evaluations++
	ev.packer.Resume(order, k, ev.completions)
	return ev.scoreCompletions()
}

// toBack writes into dst the order src with the jobs at positions i < k
// moved to the end, in their order, or swapped when flip is set.
func toBack(dst, src []int, i, k int, flip bool) {
	n := len(src)
	copy(dst[:i], src[:i])
	copy(dst[i:k-1], src[i+1:k])
	copy(dst[k-1:n-2], src[k+1:])
	dst[n-2], dst[n-1] = src[i], src[k]
	if flip {
		dst[n-2], dst[n-1] = dst[n-1], dst[n-2]
	}
}

// moveTo writes into dst the order src with the job at position i moved to
// position k (as if removed and reinserted before the job now at k).
func moveTo(dst, src []int, i, k int) {
	x := src[i]
	switch {
	case k < i:
		copy(dst[:k], src[:k])
		dst[k] = x
		copy(dst[k+1:i+1], src[k:i])
		copy(dst[i+1:], src[i+1:])
	default:
		copy(dst[:i], src[:i])
		copy(dst[i:k-1], src[i+1:k])
		dst[k-1] = x
		copy(dst[k:], src[k:])
	}
}

// penaltyAt is F_j(s) of the moldable problem: job k's penalty when it
// holds s slots from now until done (FLEX 3.2). s = 0 never completes.
func (in *instance) penaltyAt(k, s int) float64 {
	c := math.Inf(1)
	if s > 0 {
		c = in.now + in.work[k]/float64(s)
	}
	v := in.fn[k].At(c) // in.metrics[k].Of(in.pj[k], c), resolved once
	if math.IsNaN(v) {
		// 0 * Inf: a job of weight 0 costs nothing, even never finishing.
		return 0
	}
	return v
}

// genericOrder is FLEX's generic scheme (section 3.2; docs/algorithms.md
// section 4 item 1): solve the moldable problem as a separable RAP and use
// the completion order of its solution as the priority order.
//
// For step metrics it also returns the knapsack's on-time set in deadline
// orders (plain and "deadline minus fastest duration") followed by the
// other jobs: the set is what the knapsack decides, the order within it
// is better left to the deadlines than to the moldable completion times,
// which MPS does not keep.
func (in *instance) genericOrder(dpCells int) ([]ordering, Stats) {
	var stats Stats
	n := len(in.jobs)
	convex, allFlow := true, true
	for _, m := range in.distinctMetrics() {
		info, _ := penalty.Lookup(m)
		convex = convex && info.Convex
		allFlow = allFlow && (m == penalty.AvgResponseTime || m == penalty.WeightedResponseTime || m == penalty.AvgStretch || m == penalty.AvgLateness)
	}
	rp := rap.Problem{Slots: in.slots, Min: in.min, Max: in.max, F: in.penaltyAt}
	var s []int
	var onTime []bool
	switch {
	case in.agg == penalty.Max:
		s = rap.Minimax(rp)
	case convex:
		if allFlow {
			// F_j(s) = a_j + b_j / s for these metrics: the marginal gain
			// b_j / (s (s-1)) has a closed-form inverse.
			rp.Inverse = in.flowInverse
		}
		s = rap.Threshold(rp)
	default:
		if dpCells == 0 {
			dpCells = defaultDPCells
		}
		choices := in.stepChoices()
		if choices == nil {
			s = rap.Greedy(rp)
			break
		}
		pick, cells, exact := rap.Knapsack(in.slots, choices, dpCells)
		stats.DPCells, stats.DPFallback = cells, !exact
		s = make([]int, n)
		onTime = make([]bool, n)
		for k, x := range pick {
			s[k] = choices[k][x].Slots
			onTime[k] = x > 0
		}
	}
	comp := make([]float64, n)
	for k := range comp {
		comp[k] = math.Inf(1)
		if s[k] > 0 {
			comp[k] = in.now + in.work[k]/float64(s[k])
		}
	}
	// Jobs the RAP leaves without slots never finish in the moldable
	// schedule; among them, shortest isolated time first.
	order := sortedBy(n, func(k int) float64 { return comp[k] })
	sort.SliceStable(order, func(a, b int) bool {
		ka, kb := order[a], order[b]
		if comp[ka] != comp[kb] || !math.IsInf(comp[ka], 1) {
			return false
		}
		return in.work[ka]/float64(in.max[ka]) < in.work[kb]/float64(in.max[kb])
	})
	out := []ordering{{"generic_rap", order}}
	if onTime != nil {
		fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
		due := func(k int) float64 {
			if in.metrics[k] == penalty.SLACost {
				// The deadline of the step the knapsack chose to meet.
				c := in.now + in.work[k]/float64(max(1, s[k]))
				for _, st := range in.pj[k].SLA {
					if c <= st.Deadline {
						return st.Deadline
					}
				}
				return in.pj[k].SLA[len(in.pj[k].SLA)-1].Deadline
			}
			return in.pj[k].Deadline
		}
		split := func(scheme string, key func(k int) float64) ordering {
			o := sortedBy(n, func(k int) float64 {
				if onTime[k] {
					return key(k)
				}
				return math.Inf(1)
			})
			// The rest keep the moldable completion order.
			rest := o[:0:0]
			for _, k := range order {
				if !onTime[k] {
					rest = append(rest, k)
				}
			}
			return ordering{scheme, append(o[:n-len(rest)], rest...)}
		}
		out = append(out, split("generic_rap_edd", due),
			split("generic_rap_edd_slack", func(k int) float64 { return due(k) - fastest(k) }))
	}
	return out, stats
}

// flowInverse returns the largest s in [min, max] whose marginal gain
// F(s-1) - F(s) = b / (s (s-1)) is at least lambda, b being the job's
// weighted work (FLEX 3.2 response time and stretch, FLEX Fig. 1a).
func (in *instance) flowInverse(k int, lambda float64) int {
	b := in.work[k] * in.flowWeight(k)
	lo, hi := in.min[k], in.max[k]
	if lambda <= 0 {
		return hi
	}
	// b / (s(s-1)) >= lambda  <=>  s(s-1) <= b / lambda.
	r := b / lambda
	if r >= float64(hi)*float64(hi) {
		return hi // also keeps the conversion below in int range
	}
	s := int(math.Floor((1 + math.Sqrt(1+4*r)) / 2))
	for s > lo && float64(s)*float64(s-1) > r {
		s--
	}
	for s < hi && float64(s+1)*float64(s) <= r {
		s++
	}
	return max(lo, min(hi, s))
}

// flowWeight is the slope of job k's penalty in its completion time.
func (in *instance) flowWeight(k int) float64 {
	switch in.metrics[k] {
	case penalty.WeightedResponseTime:
		return in.pj[k].Weight
	case penalty.AvgStretch:
		return 1 / in.pj[k].Iso
	}
	return 1
}

// stepChoices lists, for step metrics, each job's useful allocations: its
// minimum and the least slot count reaching each lower penalty level
// (docs/algorithms.md section 4 item 1, the multiple-choice knapsack). It
// returns nil when some job's metric is not a step metric.
func (in *instance) stepChoices() [][]rap.Choice {
	out := make([][]rap.Choice, len(in.jobs))
	for k := range in.jobs {
		info, _ := penalty.Lookup(in.metrics[k])
		if !info.Step {
			return nil
		}
		var deadlines []float64
		if in.metrics[k] == penalty.SLACost {
			for _, st := range in.pj[k].SLA {
				deadlines = append(deadlines, st.Deadline)
			}
		} else {
			deadlines = []float64{in.pj[k].Deadline}
		}
		cs := []rap.Choice{{Slots: in.min[k], Value: in.penaltyAt(k, in.min[k])}}
		// Later deadlines need fewer slots: walk them from the last.
		for x := len(deadlines) - 1; x >= 0; x-- {
			d := deadlines[x] - in.now
			if d <= 0 {
				continue
			}
			need := int(math.Ceil(in.work[k]/d - 1e-9))
			if need <= cs[len(cs)-1].Slots || need > in.max[k] {
				continue
			}
			v := in.penaltyAt(k, need)
			if v < cs[len(cs)-1].Value {
				cs = append(cs, rap.Choice{Slots: need, Value: v})
			}
		}
		out[k] = cs
	}
	return out
}

// admissionOrders builds orders for step metrics by greedy admission, the
// Moore-Hodgson idea with MPS itself as the judge (FLEX 3.2 names
// Moore-Hodgson for tardy jobs; its single-machine test does not fit
// malleable jobs): jobs are considered in a priority (heaviest penalty,
// densest penalty per unit of work, earliest due), and each is moved into
// the front set, kept in due order, when that makes the schedule better.
// Each order costs J evaluations.
func (ev *evaluator) admissionOrders() []ordering {
	in := ev.in
	n := len(in.jobs)
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := func(k int) float64 {
		if in.metrics[k] == penalty.SLACost && len(in.pj[k].SLA) > 0 {
			return in.pj[k].SLA[0].Deadline
		}
		return in.pj[k].Deadline
	}
	due := func(k int) float64 { return deadline(k) - fastest(k) }
	stake := in.stake
	admit := func(e *evaluator, byDue []int, scheme string, priority []int) ordering {
		front := make([]bool, n)
		order := make([]int, 0, n)
		build := func() {
			order = order[:0]
			for _, k := range byDue {
				if front[k] {
					order = append(order, k)
				}
			}
			for _, k := range byDue {
				if !front[k] {
					order = append(order, k)
				}
			}
		}
		build()
		best := e.score(order)
		try := func() bool {
			build()
			if s := e.score(order); s.less(best) {
				best = s
				return true
			}
			return false
		}
		for _, k := range priority {
			front[k] = true
			if !try() {
				front[k] = false
			}
		}
		build()
		return ordering{scheme, append([]int(nil), order...)}
	}
	// The front set runs in deadline order, less the fastest duration or
	// not: which one meets more deadlines depends on the caps.
	keys := []struct {
		name string
		due  func(k int) float64
	}{{"", due}, {"_edd", deadline}}
	res := make([][]ordering, len(keys))
	run := func(e *evaluator, x int) {
		byDue := sortedBy(n, keys[x].due)
		name := keys[x].name
		res[x] = []ordering{
			admit(e, byDue, "admission_stake"+name, sortedBy(n, func(k int) float64 { return -stake(k) })),
			admit(e, byDue, "admission_density"+name, sortedBy(n, func(k int) float64 { return -stake(k) / in.work[k] })),
			admit(e, byDue, "admission_due"+name, byDue),
		}
	}
	// The two keys' orders are independent, J schedules each: the second
	// key's are made on a goroutine of its own with its own evaluator
	// (the answers are those of one goroutine: TestParallelSolveIsSerial).
	ev.atOnce(len(keys), run)
	return append(res[0], res[1]...)
}

// thresholdOrders builds orders for minimax objectives by bisection on the
// threshold theta, the malleable counterpart of the RAP minimax of
// docs/algorithms.md section 4: each job must complete by the latest time
// its penalty stays within theta, which makes the problem one of meeting
// deadlines, for which earliest-deadline orders (plain, and less the job's
// fastest duration) are the natural MPS priorities. A theta is reached when
// the MPS schedule of such an order scores within it; the search keeps the
// best order seen. upper is the best value known so far.
func (ev *evaluator) thresholdOrders(upper float64) []ordering {
	in := ev.in
	n := len(in.jobs)
	if math.IsInf(upper, 0) || math.IsNaN(upper) {
		return nil
	}
	iterations := min(thresholdIterations, max(2, searchJobEvaluations/(2*n)))
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	// The least conceivable value: every job alone at full speed from now.
	lower := math.Inf(-1)
	for k := range in.jobs {
		lower = math.Max(lower, in.metrics[k].Of(in.pj[k], in.now+fastest(k)))
	}
	var out []ordering
	for _, variant := range []struct {
		scheme string
		slack  bool
	}{{"threshold_edd", false}, {"threshold_edd_slack", true}} {
		lo, hi := lower, upper
		var bestOrder []int
		bestScore := score{math.Inf(1), math.Inf(1)}
		for it := 0; it < iterations && hi-lo > 1e-9*math.Max(1, math.Abs(hi)); it++ {
			theta := lo + (hi-lo)/2
			order := sortedBy(n, func(k int) float64 {
				d := in.latest(k, theta)
				if variant.slack {
					d -= fastest(k)
				}
				return d
			})
			sc := ev.score(order)
			if sc.less(bestScore) {
				bestOrder, bestScore = order, sc
			}
			if sc.value <= theta {
				hi = math.Min(theta, sc.value)
			} else {
				lo = theta
			}
		}
		if bestOrder != nil {
			out = append(out, ordering{variant.scheme, bestOrder})
		}
	}
	return out
}

// thresholdIterations bounds each bisection of thresholdOrders; for large
// J it shrinks so that the bisection costs about searchJobEvaluations job-
// evaluations, like the local search.
const thresholdIterations = 30

// maxAdmissionJobs is the largest J for which admissionOrders runs: each of
// its orders costs J schedules, O(J^2 log J) in all.
const maxAdmissionJobs = 200

// latest returns the latest completion time of job k whose penalty stays
// within theta (+Inf when any time will do, the job's weight being 0).
// Closed forms for the menu's minimax metrics; penalties are
// non-decreasing in the completion time, so bisection serves the rest.
func (in *instance) latest(k int, theta float64) float64 {
	j := in.pj[k]
	per := func(w float64) float64 {
		if w <= 0 {
			return math.Inf(1)
		}
		return theta / w
	}
	switch in.metrics[k] {
	case penalty.MaxResponseTime, penalty.AvgResponseTime:
		return j.Submitted + theta
	case penalty.MaxWeightedResponseTime, penalty.WeightedResponseTime:
		return j.Submitted + per(j.Weight)
	case penalty.Makespan:
		return theta
	case penalty.MaxStretch, penalty.AvgStretch:
		return j.Submitted + theta*j.Iso
	case penalty.MaxTardiness, penalty.AvgTardiness, penalty.MaxLateness, penalty.AvgLateness:
		return j.Deadline + theta
	case penalty.MaxWeightedTardiness, penalty.WeightedTardiness, penalty.MaxWeightedLateness:
		return j.Deadline + per(j.Weight)
	}
	lo, hi := in.now, in.now+1
	for in.metrics[k].Of(j, hi) <= theta && hi < 1e300 {
		lo, hi = hi, in.now+2*(hi-in.now)
	}
	for range 100 {
		mid := lo + (hi-lo)/2
		if in.metrics[k].Of(j, mid) <= theta {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// sacrificeOrders builds, for sums of deadline penalties, orders that give
// up a few jobs on purpose: for every set B of at most b jobs, the other
// jobs in deadline order, then B in deadline order, B running on its minima
// until the others finish. It is the enumerative counterpart of Moore-
// Hodgson (FLEX 3.2 names it for tardy jobs): which jobs to give up is the
// hard part, and for a handful of jobs every small set can be tried. b is
// the largest of maxSacrifice, ..., 1, 0 whose enumeration costs at most
// 2 * searchJobEvaluations job-evaluations per due key (b = 3 up to J = 15,
// 2 up to J = 26, 1 up to J = 99; at most 2 for the second key). It returns
// the best order per due key: deadline, and deadline less the fastest
// duration.
func (ev *evaluator) sacrificeOrders() []ordering {
	in := ev.in
	n := len(in.jobs)
	b := 0
	for b < maxSacrifice && n*setsUpTo(n, b+1) <= 2*searchJobEvaluations {
		b++
	}
	if b == 0 {
		return nil
	}
	fastest := func(k int) float64 { return in.work[k] / float64(in.max[k]) }
	deadline := in.reachableDue
	order := make([]int, n)
	given := make([]bool, n)
	var out []ordering
	for _, key := range []struct {
		scheme string
		due    func(k int) float64
		most   int
	}{
		{"sacrifice_edd", deadline, maxSacrifice},
		// Sets of three added nothing over deadline order on 310 FLEX 4.1
		// instances and cost 120 schedules at J = 10.
		{"sacrifice_edd_slack", func(k int) float64 { return deadline(k) - fastest(k) }, 2},
	} {
		byDue := sortedBy(n, key.due)
		var bestOrder []int
		bestScore := score{math.Inf(1), math.Inf(1)}
		try := func() {
			front := 0
			back := n
			for x := n - 1; x >= 0; x-- {
				if k := byDue[x]; given[k] {
					back--
					order[back] = k
				}
			}
			for _, k := range byDue {
				if !given[k] {
					order[front] = k
					front++
				}
			}
			if sc := ev.score(order); sc.less(bestScore) {
				bestScore, bestOrder = sc, append(bestOrder[:0], order...)
			}
		}
		// Every set of at most b jobs, each once: sets grow from the
		// positions after their last member.
		var sets func(from, left int)
		sets = func(from, left int) {
			try()
			if left == 0 {
				return
			}
			for x := from; x < n; x++ {
				given[byDue[x]] = true
				sets(x+1, left-1)
				given[byDue[x]] = false
			}
		}
		sets(0, min(b, key.most))
		out = append(out, ordering{key.scheme, bestOrder})
	}
	return out
}

// jitDue is job k's place in the tardy keys' jit order (dueSearch) and
// admitRepair's: its reachable deadline plus its work over the cluster's
// slots, so that a big job goes just in time behind small ones due a
// little after it.
func (in *instance) jitDue(k int) float64 {
	return in.reachableDue(k) + in.work[k]/float64(in.slots)
}

// reachableDue is job k's deadline; an SLA job is due at its first step it
// can still meet (alone, at full speed): a step already out of reach orders
// nothing.
func (in *instance) reachableDue(k int) float64 {
	if sla := in.pj[k].SLA; in.metrics[k] == penalty.SLACost && len(sla) > 0 {
		for _, st := range sla {
			if in.reachable(k, st.Deadline) {
				return st.Deadline
			}
		}
		return sla[len(sla)-1].Deadline
	}
	return in.pj[k].Deadline
}

// maxSacrifice is the most jobs sacrificeOrders gives up at once. Three:
// with 90% slack (FLEX 4.1's generator, seed 5, instance 7, weighted tardy
// jobs) the optimum gives up three light jobs (weights 0.16, 0.21, 0.25)
// to keep one of 0.86, and no sequence of smaller moves gets there.
const maxSacrifice = 3

// setsUpTo is the number of subsets of at most b of n items.
func setsUpTo(n, b int) int {
	total, c := 0, 1
	for i := 0; i <= b && i <= n; i++ {
		total += c
		c = c * (n - i) / (i + 1)
	}
	return total
}
