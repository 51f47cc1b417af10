package solver

// Window search and its iteration (items 4 to 6 of docs/solver-at-scale.md):
// insertion of each job within a few positions and at a few jumps, with
// don't-look bits, the late swaps of tardiness, and the walks with
// double-bridge kicks that iterate it.

import (
	"cmp"
	"math/rand/v2"
	"slices"

	"github.com/flexd/flexd/penalty"
)

// windowSearch is first-improvement insertion local search in which each job
// moves to the positions within window either way, and to a few farther
// ones at geometrically growing distances (jumps, windowTargets: below
// jump, which is maxJump but in one of dueSearches' searches); it runs
// until a pass finds nothing or budget evaluations are spent. look says
// which positions to try first (nil: all); reach is how far from an
// accepted move positions are looked at again. On the search at scale (sums of deadline penalties
// with a margin) each position tries only its best-guessed move
// (guessBest), of those mayGain allows.
//
// Four things keep it cheap. Don't-look bits (Bentley's, for the TSP): a
// pass tries the moves of position i only if a position within reach of i
// changed since i was last tried, so the passes that confirm a local
// optimum cost little, and a kick (iterated search) re-examines only the
// positions near its cuts. The guesses: one estimate per position rather
// than one per move. Prefix reuse: a move from position p on is scheduled
// from the incumbent's state before p (mps.Packer.Resume, Rerecord). And
// screening: a move is estimated by scheduling only until its schedule
// meets the incumbent's again (mps.Packer.Estimate), about the moved span
// instead of the rest of the order. start's score is *s, or, with s nil,
// taken from the run that records it (newIncumbent).
func (ev *evaluator) windowSearch(start []int, s *score, budget, window, reach, jump int, look []bool) ([]int, score, int) {
	n := len(start)
	inc := ev.newIncumbent(start, s)
	cand := make([]int, n)
	whole := look == nil
	if look == nil {
		look = make([]bool, n)
		for i := range look {
			look[i] = true
		}
	}
	targets := make([]int, 0, 2*window+32)
	// Moves that cannot pay are skipped on the search at scale (mayGain),
	// in every descent (see mayGain for when that was measured).
	prune := ev.margin > 0 && ev.in.agg == penalty.Sum && ev.plateau
	seq := identity(n)
	var gs guessSpace
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		if whole && prune {
			// A descent over the whole order tries first the positions
			// of the most penalised jobs (in the incumbent's last
			// recording), as levelDescent does its jobs: at J = 200 it
			// is most of the search and the budget ends it. Measured
			// at the default effort, summed excess over the best known
			// of the 24 tardiness cells (J = 50 to 200 both settings,
			// unseen seeds 7 to 9 at J = 100 and 200): 0.275 -> 0.248,
			// and 0.278 -> 0.267 with other kicks (the walks' seeds),
			// a gain about the size of that spread. At J = 200, where
			// no kick runs, 5 of the 10 cells better and 4 worse:
			// weighted_tardiness 1.035 -> 1.022 (second setting 1.029
			// -> 1.019), avg_tardiness 1.021 -> 1.032. In one of
			// dueSearches' two searches only, 0.265 or 0.248. Tardy
			// jobs and SLA cost came out the same in every cell.
			pen, order := ev.basePen, inc.order
			for i := range seq {
				seq[i] = i
			}
			slices.SortStableFunc(seq, func(a, b int) int { return cmp.Compare(pen[order[b]], pen[order[a]]) })
		}
		for _, i := range seq {
			if inc.spent() >= budget {
				break
			}
			if !look[i] {
				continue
			}
			look[i] = false
			if prune {
				// Only the best-guessed move (guessBest).
				if k, ok := ev.guessBest(inc.order, i, window, jump, &gs); ok {
					moveTo(cand, inc.order, i, k)
					if p, q := min(i, k), max(i, k); inc.try(cand, p, q) {
						improved = true
						markAround(look, p, q, reach)
					}
				}
				continue
			}
			targets = windowTargets(targets[:0], i, n, window, jump)
			for _, k := range targets {
				if k < 0 || k > n || inc.spent() >= budget {
					continue
				}
				moveTo(cand, inc.order, i, k)
				if p, q := min(i, k), max(i, k); inc.try(cand, p, q) {
					improved = true
					markAround(look, p, q, reach)
					break
				}
			}
		}
	}
	return inc.result()
}

// mayGain reports whether moving the job at position i of order to before
// position k can pay on a sum of deadline penalties, judged from the
// incumbent's last recording (baseHot): a job moved earlier only if it is
// late there, or within the margin of its deadline (evaluator.early); a job
// moved later only if one of the jobs it lets by is. A job on time gains
// nothing from finishing earlier, and the jobs it passes only lose, and
// the other way round. That is not exact (a job finishing earlier also
// frees its slots earlier for the jobs behind, and the recording lags the
// incumbent by up to recordGap positions): on three instances each at J =
// 100 and 200, 1 to 15% of the moves skipped would have lowered the
// objective. But it skips 30 to 55% of window search's moves at J = 100
// and 13 to 30% at J = 200, and the budget they took goes to further
// descents and kicks (docs/solver-at-scale-log.md has the measurements).
//
// Window search skips them in every descent. In the descent over the whole
// order it did so at first only from budgetBoundJobs jobs: below, that
// descent converges anyway, and skipping sent 2 of 10 base-case instances
// at J = 100 to worse basins. With two searches from two starts on
// tardiness (dueSearches) a worse basin in one is hedged by the other,
// and skipping everywhere did better: avg_tardiness at J = 100 1.013 ->
// 1.004, weighted tardy jobs in the second setting at J = 50 1.024 ->
// 1.000, 5 of 70 sum cells better and 2 worse (within 1%).
func (ev *evaluator) mayGain(order []int, i, k int) bool {
	if k < i {
		return ev.baseHot[order[i]]
	}
	for _, j := range order[i+1 : k] {
		if ev.baseHot[j] {
			return true
		}
	}
	return false
}

// maxJump bounds window search's jumps: it tries distances 2 window, 4
// window, ... below maxJump (6, 12 and 24 positions), but in the descent of
// dueSearches' second search on tardiness (see there). A move's estimate runs
// until the moved job's schedule meets the incumbent's again, so its cost
// grows with the distance, and the farther jumps almost never pay: on the
// five base-case instances at J = 200 (weighted tardiness), moves of 32
// positions or more were 6,877 of 61,000 tried and 25% of the events
// estimated, and 10 of them were kept (of 3,900). Capped, the budget they
// took goes to more passes and kicks: against the committed references the
// sums of tardiness went from 1.018 to 1.004 (weighted, J = 100) and from
// 1.029 to 1.021 and 1.057 to 1.053 (J = 200), with the other metrics the
// same but one (docs/solver-at-scale-log.md).
const maxJump = 32

// markAround sets the look bits of positions lo-reach-1 to hi+reach+1.
func markAround(look []bool, lo, hi, reach int) {
	for x := max(0, lo-reach-1); x < min(len(look), hi+reach+2); x++ {
		look[x] = true
	}
}

// lateSwapShare is the share of the budget that lateSwaps may spend on
// tardiness, after the first window search (what it leaves goes to the
// walks); lateSwapJobs bounds the late jobs it pairs (the pairs are made
// and sorted outside the budget, J^2 at worst): on the committed instances
// at J = 200 at most 82 jobs are late. Since a pass goes on after a swap
// that pays (lateSwaps), on the unseen seeds 10 to 13 at J = 200 the
// summed excess over the best known of the four tardiness cells was
// 0.0236 at 0.1, 0.0222 at 0.2, 0.0216 at 0.3 and 0.0213 at 0.5, where
// the swaps mostly converge; 0.05 was the share when a pass started again
// after each swap (docs/solver-at-scale-log.md, item 4).
const (
	lateSwapShare = 0.3
	lateSwapJobs  = 128
)

// lateSwaps is first-improvement search over swaps of two late jobs out of
// Smith's order (what the job stands to lose per unit of time late, over its
// work: the job due later in the order has the higher ratio), the pairs
// with the largest difference of ratio first, each scored as one move of
// the incumbent from the first of the two positions to the second. It stops
// when no pair pays or budget evaluations are spent, and returns the order,
// its score and the evaluations spent. start's score is *s.
//
// Why: on a single machine, of two late jobs next to each other the one with
// the higher ratio goes first (Smith's rule), and swapping two late jobs of
// about the same work far apart leaves the jobs between them about where they
// were. Window search's moves are insertions within 32 positions, and a swap
// of jobs 40 positions apart is two insertions, each of which may lose on its
// own. On the unseen seed 10, J = 200, instance 8 (weighted tardiness), two
// jobs of 513 and 477 units, due at 3.7 and 2.8, were 43 positions apart in
// the wrong order: swapping them, and what that led to, took FLEX's answer
// from 1.051 to 1.005 of the best known. Measured at the default effort
// (docs/solver-at-scale-log.md, item 4): unseen seeds 10 to 13, weighted
// tardiness, J = 200 base case 1.0105 / 1.051 -> 1.0068 / 1.022; the summed
// excess of the four cells at J = 100 and 200 0.022 -> 0.017 (three seeds of
// the walks' kicks: 0.021 / 0.020 / 0.022 -> 0.018 / 0.018 / 0.017);
// avg_tardiness 0.023 / 0.022 -> 0.021 / 0.018 (two seeds), its committed
// J = 100 base case 1.005 -> 1.000. No committed cell worse by more than the
// seeds' spread.
func (ev *evaluator) lateSwaps(start []int, s *score, budget int) ([]int, score, int) {
	in := ev.in
	inc := ev.newIncumbent(start, s)
	ratio := func(k int) float64 { return in.stake(k) / in.work[k] }
	type pair struct {
		a, b int
		d    float64
	}
	var late []int
	var pairs []pair
	cand := make([]int, len(start))
	for improved := true; improved && inc.spent() < budget; {
		improved = false
		// The late jobs are those of the incumbent's recording (its
		// penalties, basePen).
		inc.confirm()
		pen := ev.basePen
		late = late[:0]
		for x, k := range inc.order {
			if pen[k] > 0 {
				late = append(late, x)
			}
		}
		if len(late) > lateSwapJobs {
			// The lateSwapJobs most penalised, in order.
			penaltyAt := func(x int) float64 { return pen[inc.order[x]] }
			slices.SortFunc(late, func(a, b int) int {
				if c := cmp.Compare(penaltyAt(b), penaltyAt(a)); c != 0 {
					return c
				}
				return a - b
			})
			late = late[:lateSwapJobs]
			slices.Sort(late)
		}
		pairs = pairs[:0]
		for i, a := range late {
			for _, b := range late[i+1:] {
				if d := ratio(inc.order[b]) - ratio(inc.order[a]); d > 0 {
					pairs = append(pairs, pair{a, b, d})
				}
			}
		}
		slices.SortFunc(pairs, func(x, y pair) int {
			if c := cmp.Compare(y.d, x.d); c != 0 {
				return c
			}
			return x.a - y.a
		})
		// One pass tries every pair once, going on after a swap that
		// pays: a swap leaves every other job where it was, so the pairs
		// still name two positions of the order, and a pair whose jobs
		// a swap has put in Smith's order is passed over. (A pass that
		// started again from the top after each swap spent most of its
		// budget on the pairs it had just rejected.)
		for _, p := range pairs {
			if inc.spent() >= budget {
				break
			}
			if ratio(inc.order[p.b]) <= ratio(inc.order[p.a]) {
				continue
			}
			copy(cand, inc.order)
			cand[p.a], cand[p.b] = cand[p.b], cand[p.a]
			if inc.try(cand, p.a, p.b) {
				improved = true
			}
		}
	}
	return inc.result()
}

// bigSwaps is dueSearch's last stage on tardiness alone, on top of its
// budget: a late job swapped with a big job on time ahead of it. Of the
// bigSwapLate most penalised late jobs of best, each is tried in the place
// of each of the bigSwapJobs on-time jobs with the most work ahead of it,
// that job taking the late job's place; a swap that scores within
// bigSwapSlack of best is followed by a window search of bigSwapPolish
// evaluations, and the first whose answer beats best is kept; then the
// stage starts again from it. It stops when no swap pays or budget
// evaluations are spent (one a swap, and the window searches'), and
// returns the best order found, best itself when nothing beats it.
//
// Why: a big job late and a big job on time ahead of it are a local
// optimum of every insertion when each move alone makes both late, where
// the swap and a few moves after it sacrifice the cheaper one. On seed
// 22's base case at J = 200, instance 8 (weighted tardiness), every search
// of FLEX's ended at 4.63 to 4.65 with job 90 (weight 0.65, 563 slot-
// seconds, due 0.93) late by 1.97, an order no insertion improves, where
// descents from the classical and random orders reach 4.04 to 4.37 (the
// best known 4.016): with job 90 on time and job 35 (weight 0.38, 503
// slot-seconds, due 0.62) late in its place; with this stage FLEX reaches
// 4.022. Measured at the default effort, the kicks' default seed, summed
// excess over the best known (docs/solver-at-scale-log.md, session 53,
// item 5): avg_tardiness 0.0243 -> 0.0128, 0.0724 -> 0.0601 and 0.1342 ->
// 0.1271 at J = 50, 100 and 200 (36, 50 and 30 cells), weighted tardiness
// 0.0239 -> 0.0143, 0.0886 -> 0.0841 and 0.2187 -> 0.1886 (cells past 1%
// at J = 200 4 -> 2); on seeds 48 to 51 at J = 200, not used to choose
// it, 0.0345 -> 0.0332 and 0.0535 -> 0.0514. 1.00 to 1.08 times the time.
func (ev *evaluator) bigSwaps(best scoredOrder, budget int) scoredOrder {
	in := ev.in
	n := len(in.jobs)
	pos, pen := make([]int, n), make([]float64, n)
	cand := make([]int, n)
	var late, bigs []int
	spent := 0
	for improved := true; improved && spent < budget; {
		improved = false
		order := best.o.order
		ev.score(order)
		spent++
		for x, k := range order {
			pos[k] = x
			pen[k] = in.fn[k].At(ev.completions[k])
		}
		late = bigSwapLateJobs(late, order, pen)
	swaps:
		for _, a := range late {
			bigs = bigSwapBigJobs(bigs, order[:pos[a]], pen, in.work)
			for _, b := range bigs {
				if spent >= budget {
					break swaps
				}
				copy(cand, order)
				cand[pos[a]], cand[pos[b]] = b, a
				s := ev.score(cand)
				spent++
				if s.value > best.s.value*(1+bigSwapSlack) {
					continue
				}
				o, s, used := ev.windowSearch(cand, &s, min(bigSwapPolish, budget-spent), searchWindow, searchWindow, maxJump, nil)
				spent += used
				if s.less(best.s) {
					best = best.beatenBy(slices.Clone(o), s, "+bigswap")
					improved = true
					break swaps
				}
			}
		}
	}
	return best
}

// bigSwapLateJobs is dst holding the bigSwapLate jobs of order with the
// largest penalties in pen (each job's, indexed by job), the largest
// first, those above 0 only: the late jobs bigSwaps tries.
func bigSwapLateJobs(dst, order []int, pen []float64) []int {
	dst = dst[:0]
	for _, k := range order {
		if pen[k] > 0 {
			dst = append(dst, k)
		}
	}
	slices.SortStableFunc(dst, func(a, b int) int { return cmp.Compare(pen[b], pen[a]) })
	return dst[:min(len(dst), bigSwapLate)]
}

// bigSwapBigJobs is dst holding the bigSwapJobs jobs of ahead (the jobs
// ahead of a late job) on time (no penalty in pen) with the most work,
// the most first: the jobs bigSwaps swaps it with.
func bigSwapBigJobs(dst, ahead []int, pen, work []float64) []int {
	dst = dst[:0]
	for _, b := range ahead {
		if pen[b] == 0 {
			dst = append(dst, b)
		}
	}
	slices.SortStableFunc(dst, func(x, y int) int { return cmp.Compare(work[y], work[x]) })
	return dst[:min(len(dst), bigSwapJobs)]
}

// The bounds of bigSwaps: a tenth of dueSearch's budget on top of it
// (bigSwapShare; a third did better, tardiness at J = 200 0.1212 and
// 0.1735 against 0.1271 and 0.1886, but took 47 to 48 ms there against a
// bar of 60), the late jobs and the big jobs it pairs, how far above best
// a swap may score and still be polished, and the polish's evaluations.
// The last four are first choices: varied one at a time (12 late jobs, 30
// big jobs, a slack of 10%, a polish of 30 or 120), the summed excess of
// every set of bigSwaps' measurements moved by 0.005 at most, up or down.
const (
	bigSwapShare  = 0.1
	bigSwapLate   = 6
	bigSwapJobs   = 15
	bigSwapSlack  = 0.05
	bigSwapPolish = 60
)

// iterate spends the budget on iterated local search from best: a double-
// bridge kick of the walk's order (three cuts within span reaches of each
// other, the middle segments swapped), then window search from the kicked
// order with only the positions near the cuts to look at; the walk moves
// to the new local optimum when it is no worse. rng draws the kicks;
// seeded from the instance, it keeps the result a function of the input.
func (ev *evaluator) iterate(best scoredOrder, budget, window, reach, span int, rng *rand.Rand) scoredOrder {
	n := len(best.o.order)
	if n < 8 {
		return best
	}
	walk := best
	kick := make([]int, n)
	look := make([]bool, n)
	spent := 0
	for spent < budget {
		// Short segments: a kick that moves half the order undoes the
		// descent's work.
		w := min(n-1, span*reach)
		a := rng.IntN(n - w)
		cuts := []int{a + 1 + rng.IntN(w), a + 1 + rng.IntN(w)}
		slices.Sort(cuts)
		b, c := cuts[0], cuts[1]
		doubleBridge(kick, walk.o.order, a, b, c)
		clear(look)
		markAround(look, a, c, reach)
		o, s, used := ev.windowSearch(kick, nil, budget-spent-1, window, reach, maxJump, look)
		spent += used + 1
		walk, best = walkTo(walk, best, o, s)
	}
	return best
}

// doubleBridge writes into dst the order src with its segments [a, b) and
// [b, c) swapped: the kick of the iterated searches.
func doubleBridge(dst, src []int, a, b, c int) {
	x := copy(dst, src[:a])
	x += copy(dst[x:], src[b:c])
	x += copy(dst[x:], src[a:b])
	copy(dst[x:], src[c:])
}

// walks is how many iterated walks the search at scale runs at once from
// the same order (iterateWalks, levelSearch: there each from a descent of
// its own), each with kicks of its own and the whole budget left: on two
// cores in about the time of one (J = 100), and the better of two beats
// one walk (docs/solver-at-scale-log.md: SLA cost at J = 100 1.027 -> 1.020
// of the best known, second setting 1.044 -> 1.035, no sum of deadline
// penalties worse in 70 cells). Two walks
// sharing the budget, the same work as one, lost to one. On one core the
// stage takes twice as long; the answer does not depend on the cores.
// Where two whole searches run at once instead (dueSearches: tardiness,
// SLA cost), each has one walk; two searches from two starts did better
// than two walks from one.
const walks = 2

// iterateWalks is iterate from best with the given budget for each of
// ev.walks walks at once; it returns the best they reach, the first walk's
// among equals.
func (ev *evaluator) iterateWalks(best scoredOrder, budget int) scoredOrder {
	span := ev.kickSpan()
	res := make([]scoredOrder, ev.walks)
	ev.atOnce(ev.walks, func(e *evaluator, x int) {
		res[x] = e.iterate(best, budget, searchWindow, searchWindow, span, e.rng(0x6b1c+uint64(x)))
	})
	for _, r := range res {
		if r.s.less(best.s) {
			best = r
		}
	}
	return best
}

// searchWindow is how far window search moves a job either way.
const searchWindow = 3

// kickReaches is how many reaches (searchWindow) apart the cuts of the
// walks' double-bridge kicks may lie (iterateWalks): within 24 positions;
// on tardiness alone within tardinessKickReaches (18 positions). A longer
// kick moves more of the order the descents built, and its descent spends
// more of the budget repairing it. Measured at the default effort on the
// unseen seeds 10 to 13 at J = 200 (40 base-case and 20 second-setting
// instances, references from BestKnown at 100,000 evaluations), summed
// excess over the best known of avg_tardiness and weighted_tardiness in
// both settings, three seeds of the kicks: with lateSwaps' pass as it
// was, 8 0.0366 / 0.0351 / 0.0352, 6 0.0326 / 0.0339 / 0.0335, 5 0.0336 /
// 0.0323 / 0.0344, 4 0.0332, 3 0.0369, 12 0.0426; with the pass as it is
// (references searched again), 6 0.0234 / 0.0222 / 0.0229, 5 0.0220 /
// 0.0211 / 0.0217, 4 0.0195 / 0.0215 / 0.0210, 3 0.0218 / 0.0212, and at
// J = 50 and 100 together (two seeds) 6 0.0121 / 0.0106, 4 0.0114 /
// 0.0089; but 4 took the committed base case at J = 100 from 1.0003 to
// 1.0041 (one instance at 1.038) and did worse on the unseen J = 100
// cells (0.0050 / 0.0063 -> 0.0068 / 0.0062), so 6 stays. On SLA cost
// below 150 jobs, where the walks get what the level search leaves, 6 did
// worse on the committed cells (J = 50 1.0012 -> 1.0037, worst 1.012 ->
// 1.037), so it keeps 8 (docs/solver-at-scale-log.md, item 5).
const (
	kickReaches          = 8
	tardinessKickReaches = 6
)

// kickSpan is the walks' kick span in reaches on ev's objective.
func (ev *evaluator) kickSpan() int {
	if ev.tardinessOnly {
		return tardinessKickReaches
	}
	return kickReaches
}

// farLate moves the late job of best with the most weighted tardiness to
// the latest position where it is on time (the front when it is late
// everywhere) and runs a window search of farLateEvaluations from there,
// keeping the result when it beats best. It returns the best order and the
// evaluations spent, at most budget.
//
// Why: a big job late far down the order blocks nothing behind it, but
// brought forward it takes most of the slots from its place and delays
// dozens of jobs, which then have to move around it; no window move nor
// kick (within 24 positions) makes that first step, and the second search
// (farJumps) jumps far only in its descent from its own start. On seed
// 20's base case at J = 200, instance 2 (a seed the search was not tuned
// on), FLEX had job 52 (weight 0.087, 287 slot-seconds, due 1.955) late
// 120th at 6.38 s; moved to 35th and the window search from there, 1.915
// -> 1.750 (the best known 1.729; effort 2 found 1.743 so). Measured at
// the default effort on weighted tardiness, J = 200, average / worst: seed
// 20's base case 1.0284 / 1.107 -> 1.0118 / 1.028; the other seven cells
// (seeds 1, 20 and 21, unseen seeds 10 to 13; both settings) within
// -0.0005 to +0.0003, summed excess of the eight 0.0713 -> 0.0546. Two
// jobs in turn: 1.0121 there and the others no better; avg_tardiness did
// worse with it (unseen base case 1.0044 / 1.017 -> 1.0060 / 1.031), and
// at J = 100 it changed nothing beyond noise (docs/solver-at-scale-log.md,
// session 42).
func (ev *evaluator) farLate(best scoredOrder, budget int) (scoredOrder, int) {
	in := ev.in
	// Recorded, so that the probes for k's place resume from it.
	ev.evaluations++
	ev.setBase(best.o.order)
	spent := 1
	k, most := -1, 0.0
	for _, x := range best.o.order {
		if c := ev.completions[x]; c > in.pj[x].Deadline {
			if v := in.pj[x].Weight * (c - in.pj[x].Deadline); k < 0 || v > most {
				k, most = x, v
			}
		}
	}
	if k < 0 || spent >= budget {
		return best, spent
	}
	cand := make([]int, len(best.o.order))
	at, events := ev.latestOnTime(cand, best.o.order, k, budget-spent)
	spent += (events + len(cand) - 1) / len(cand)
	cur := slices.Index(best.o.order, k)
	if at = max(at, 0); at >= cur || spent >= budget {
		return best, spent
	}
	o, s, used := ev.settleMove(best.o.order, cur, at, min(farLateEvaluations, budget-spent-1))
	spent += used
	return best.beatenBy(o, s, "+far"), spent
}

// settleMove moves the job at position from of order to position to
// (moveTo's convention) in a new order, scores it there and runs a window
// search of at most evals evaluations from it: how the far moves (farLate,
// smithBack) let the jobs they pass settle around the moved job. It returns
// the search's answer and the evaluations spent, the move's schedule
// included.
func (ev *evaluator) settleMove(order []int, from, to, evals int) ([]int, score, int) {
	cand := make([]int, len(order))
	moveTo(cand, order, from, to)
	s := ev.score(cand)
	o, s, used := ev.windowSearch(cand, &s, evals, searchWindow, searchWindow, maxJump, nil)
	return o, s, used + 1
}

// farLateEvaluations is farLate's window search: 150, 300 and 500 found
// the same.
const farLateEvaluations = 150

// smithBack moves late jobs of best back past the late jobs behind them
// that stand to lose more per unit of work (Smith's ratio, stake over
// work): each late job, if a later late job has a higher ratio and the last
// such lies more than maxJump positions behind it, goes to just before that
// job; the smithBackTries lowest-ratio such jobs are tried in turn, each
// from best and followed by smithBackEvaluations of window search, and the
// best result is kept when it beats best. It returns the best order and the
// evaluations spent, at most budget.
//
// Why: a big job with little weight that is late anyway holds its slots
// ahead of late jobs that lose more per second, and moved behind them it
// loses little (it was late already) while each of them gains its work's
// worth. lateSwaps swaps two late jobs; this move sends one job past many
// at once, which no swap nor window move (at most maxJump positions) makes,
// and the move alone is worse (the jobs in between have to settle around
// it: the window search after it does that). On seed 24's base case at J =
// 200, instance 2 (a seed the search was not tuned on), FLEX had job 163
// (weight 0.072, 315 slot-seconds, late by 0.85) 94th, ahead of jobs 81 and
// 188 (weights 0.439 and 0.136), late too; moved to 189th and the window
// search from there, 1.0350 -> 1.0035 of the best known, where effort 16
// stayed at 1.0314. Measured at the default effort on weighted tardiness at
// J = 200, twenty cells (seeds 1, 10 to 13 and 20 to 24, both settings),
// four seeds of the walks' kicks: the summed excess over the best known
// 0.1351 -> 0.1179, cells past 1% 3 -> 0 (seed 20's base case 1.0118 ->
// 1.0093, seed 23's 1.0101 -> 1.0070, seed 24's 1.0189 -> 1.0100); seed
// 25, not used to choose anything, 1.0137 / 1.0043 -> 1.0136 / 1.0045.
// Placed just after that job rather than before it, 0.1223; three tries
// against two or five, 0.1188 against 0.1281 and 0.1258 (one seed of the
// kicks); jumps of more than 16 or 64 positions rather than 32, 0.1280 and
// 0.1351 (docs/solver-at-scale-log.md, session 43).
func (ev *evaluator) smithBack(best scoredOrder, budget int) (scoredOrder, int) {
	in := ev.in
	order := best.o.order
	ev.score(order)
	spent := 1
	ratio := func(k int) float64 { return in.stake(k) / in.work[k] }
	// The late jobs' positions by ratio, highest first; scanning them,
	// last is the last position of the late jobs of a higher ratio than
	// the one at hand.
	var late []int
	for x, k := range order {
		if ev.completions[k] > in.pj[k].Deadline {
			late = append(late, x)
		}
	}
	slices.SortStableFunc(late, func(a, b int) int { return cmp.Compare(ratio(order[b]), ratio(order[a])) })
	type move struct{ from, to int }
	var moves []move
	last := -1
	for i := 0; i < len(late); {
		// The jobs of one ratio see only the higher ones' positions.
		j := i
		for j < len(late) && ratio(order[late[j]]) == ratio(order[late[i]]) {
			if late[j]+maxJump < last {
				moves = append(moves, move{late[j], last})
			}
			j++
		}
		for _, x := range late[i:j] {
			last = max(last, x)
		}
		i = j
	}
	// The lowest ratio first: moves were made highest first.
	slices.Reverse(moves)
	for x, m := range moves {
		if x == smithBackTries || spent >= budget {
			break
		}
		o, s, used := ev.settleMove(order, m.from, m.to, min(smithBackEvaluations, budget-spent-1))
		spent += used
		best = best.beatenBy(o, s, "+smith")
	}
	return best, spent
}

// smithBackTries and smithBackEvaluations are smithBack's moves tried and
// the window search after each: 100 evaluations a try did as well as 150
// (four seeds of the kicks, summed excess 0.1179 and 0.1188) and 250
// (0.1199, one seed).
const (
	smithBackTries       = 3
	smithBackEvaluations = 100
)
