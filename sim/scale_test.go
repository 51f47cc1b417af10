package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/mps"
)

// TestFlexAtScaleAgainstReferences locks FLEX's quality past the paper's
// J = 10 against the committed best-known references
// (testdata/references, made by `flexd simulate study --reference search
// --reference-effort 10`): on the FLEX 4.1 base case at S = 10 J, every
// metric's average ratio stays within avgBound of the reference and every
// instance within worstBound (at J = 100 and 200 on the first instances
// only, to keep the test fast). The bounds sit just above what FLEX does
// now, so that a change that loses quality fails here. Before the search at scale (solver/search.go) the
// average was 1.33 on avg_tardiness and 1.64 on weighted_tardiness at
// J = 50; docs/solver-at-scale.md has the current figures. A FLEX answer
// below its reference means the references are stale (they include FLEX's
// own answers): sim/testdata/references/README.md says how to make them again.
func TestFlexAtScaleAgainstReferences(t *testing.T) {
	for _, c := range []struct {
		jobs, instances      int
		avgBound, worstBound float64
	}{
		{20, 10, 1.02, 1.10},
		{50, 10, 1.03, 1.20},
		{100, 4, 1.04, 1.10},
		{200, 5, 1.10, 1.40},
	} {
		w := Workload{Jobs: c.jobs, Slots: 10 * c.jobs, Small: 0.8, Slack: 0.75}
		refs := committedReferences(t, w)
		for _, info := range penalty.All() {
			m := info.Name
			ratios := flexRatios(t, refs, w, c.instances, m, 0)
			if len(ratios) == 0 {
				continue
			}
			sum, worst := 0.0, 0.0
			for _, r := range ratios {
				sum += r
				worst = max(worst, r)
			}
			avg := sum / float64(len(ratios))
			t.Logf("J = %d %-26s avg %.4f worst %.4f", c.jobs, m, avg, worst)
			if avg > c.avgBound || worst > c.worstBound {
				t.Error(fmt.Sprintf("J = %d, %s: avg %.4f (bound %.2f), worst %.4f (bound %.2f)", c.jobs, m, avg, c.avgBound, worst, c.worstBound))
			}
		}
	}
}

// committedReferences is the committed seed-1 reference set of w
// (testdata/references, effort 10).
func committedReferences(t *testing.T, w Workload) *ReferenceSet {
	t.Helper()
	path := filepath.Join("testdata", "references", ReferenceFile(w, 1, 10))
	refs, err := LoadReferenceSet(path, w, 1, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(refs.Values) == 0 {
		t.Fatalf("%s: no references", path)
	}
	return refs
}

// flexRatios is FLEX's value, with search seed seed (the random kicks'
// stream: solver.Options.SearchSeed; 0 the default), over the reference on
// metric m for each of the first n instances of refs (seed 1 of w), those
// with a positive
// reference (as the study: a ratio to a non-positive value means
// nothing). A FLEX answer below its reference is an error: the
// references are stale (they include FLEX's own answers), and
// sim/testdata/references/README.md says how to make them again.
func flexRatios(t *testing.T, refs *ReferenceSet, w Workload, n int, m penalty.Metric, seed uint64) []float64 {
	t.Helper()
	var ratios []float64
	for i := range min(n, len(refs.Values)) {
		ref, ok := refs.Lookup(i, m)
		if !ok {
			t.Fatalf("J = %d: no reference for instance %d, %s", w.Jobs, i, m)
		}
		if !(ref > 0) {
			continue
		}
		p := GenerateInstance(w, 1, i)
		p.Metric = m
		p.Options.SearchSeed = seed
		r, err := solver.Flex{}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		ratio := r.Value / ref
		if ratio < 1-1e-9 {
			t.Errorf("J = %d, instance %d, %s: FLEX %v below the reference %v: the reference is stale", w.Jobs, i, m, r.Value, ref)
		}
		ratios = append(ratios, ratio)
	}
	return ratios
}

// TestFlexSLACostAt100Jobs locks SLA cost at J = 100, where its level
// walk's kicks on the big jobs and threshold accepting
// (solver.levelKickShare, levelAcceptShare) took the committed base case
// from 1.0100 to 1.0063 of the references on average: the bound fails on
// the build before them. TestFlexAtScaleAgainstReferences's bounds are
// every metric's, far looser.
func TestFlexSLACostAt100Jobs(t *testing.T) {
	const bound = 1.008
	w := Workload{Jobs: 100, Slots: 1000, Small: 0.8, Slack: 0.75}
	ratios := flexRatios(t, committedReferences(t, w), w, 10, penalty.SLACost, 0)
	if len(ratios) != 10 {
		t.Fatalf("%d instances with an SLA cost reference, want 10", len(ratios))
	}
	sum := 0.0
	for _, r := range ratios {
		sum += r
	}
	avg := sum / float64(len(ratios))
	t.Logf("SLA cost at J = 100: %.4f of the references on average", avg)
	if avg > bound {
		t.Errorf("SLA cost at J = 100: FLEX at %.4f of the references on average, want at most %v", avg, bound)
	}
}

// TestFlexTardyJobsAt100Jobs: on the committed base case at J = 100,
// instance 4 (TestFlexAtScaleAgainstReferences looks at the first four
// only), FLEX has the best known number of tardy jobs, 4, where it had 5
// before unweighted tardy jobs had tardyBoundGrowth's budget from 100
// jobs (solver.defaultBudget), which made the cell of docs/solver-at-scale.md's
// seed-1 table 1.025 / 1.250.
func TestFlexTardyJobsAt100Jobs(t *testing.T) {
	w := Workload{Jobs: 100, Slots: 1000, Small: 0.8, Slack: 0.75}
	refs := committedReferences(t, w)
	ref, ok := refs.Lookup(4, penalty.TardyJobs)
	if !ok || ref != 4 {
		t.Fatalf("the committed reference of instance 4 is %v (found %v), want 4", ref, ok)
	}
	p := GenerateInstance(w, 1, 4)
	p.Metric = penalty.TardyJobs
	r, err := solver.Flex{}.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Value != ref {
		t.Errorf("instance 4: FLEX has %v tardy jobs (%s), the best known %v", r.Value, r.Scheme, ref)
	}
}

// TestFlexSLACostAt200Jobs locks SLA cost at J = 200 in the second setting
// (slack 0.35, small-job share 0.5), averaged over sixteen seeds of FLEX's
// random kicks: one seed moves a cell of five instances by a percent, and
// four moved a build's average by half a percent (session 48: 1.0156 for
// this build, 1.0212 for a scratch build no better over sixteen). The
// level order's shifts at J = 200, the whole budget there and no
// pre-phase (solver.levelJit, byDeadline, slaPreJobs) took it from 1.0325
// to 1.0214 over four seeds (session 46), and the second half's start
// between the first half's answers (solver.relink) from 1.0244 to 1.0193
// over sixteen, against the references as refreshed in session 48 (they
// keep FLEX's own answers with these sixteen seeds too, or the stale check
// of flexRatios would find some below them); the end path
// (solver.searchHalves) reads 1.0184 there. The bound fails on the build
// before relink.
func TestFlexSLACostAt200Jobs(t *testing.T) {
	const bound, seeds = 1.020, 16
	w := Workload{Jobs: 200, Slots: 2000, Small: 0.5, Slack: 0.35}
	refs := committedReferences(t, w)
	var sum float64
	var count int
	for seed := range uint64(seeds) {
		ratios := flexRatios(t, refs, w, 5, penalty.SLACost, seed)
		if len(ratios) != 5 {
			t.Fatalf("%d instances with an SLA cost reference, want 5", len(ratios))
		}
		for _, r := range ratios {
			sum += r
			count++
		}
	}
	avg := sum / float64(count)
	t.Logf("SLA cost at J = 200, second setting: %.4f of the references on average over %d seeds of the kicks", avg, seeds)
	if avg > bound {
		t.Errorf("SLA cost at J = 200, second setting: FLEX at %.4f of the references on average over %d seeds of its kicks, want at most %v", avg, seeds, bound)
	}
}

// TestEstimateExactOnStudyInstances: on the FLEX 4.1 generator's instances
// at J = 100, mps.Packer.Estimate, which schedules a window move only until
// its schedule meets the incumbent's, gives the full run's completions
// (within 1e-9, relative), and is cut short on most moves, which is what
// makes the search at scale affordable.
func TestEstimateExactOnStudyInstances(t *testing.T) {
	for inst := range 3 {
		p := GenerateInstance(Workload{Jobs: 100, Slots: 1000, Small: 0.8, Slack: 0.75}, 1, inst)
		n := len(p.Jobs)
		in := mps.Input{Slots: p.Slots, Min: make([]int, n), Max: make([]int, n), Work: make([]float64, n)}
		for i, j := range p.Jobs {
			in.Min[i], in.Max[i], in.Work[i] = j.Min, j.Max, j.Work
		}
		r := rand.New(rand.NewPCG(uint64(inst), 2))
		order := r.Perm(n)
		var inc, full mps.Packer
		inc.Bind(in)
		full.Bind(in)
		recorded := make([]float64, n)
		inc.Record(order, recorded)
		got, want := make([]float64, n), make([]float64, n)
		cand := make([]int, n)
		cut := 0
		const moves = 300
		for range moves {
			i := r.IntN(n)
			k := max(0, min(n, i+r.IntN(9)-4))
			copy(cand, order)
			x := cand[i]
			if k > i {
				copy(cand[i:k-1], cand[i+1:k])
				cand[k-1] = x
			} else {
				copy(cand[k+1:i+1], cand[k:i])
				cand[k] = x
			}
			copy(got, recorded)
			inc.Estimate(cand, min(i, k), min(max(i, k), n-1), got)
			if inc.Spliced() {
				cut++
			}
			full.BoundCompletions(cand, want)
			for j := range want {
				if math.Abs(got[j]-want[j]) > 1e-9*math.Max(1, want[j]) {
					t.Fatalf("instance %d, move %d to %d: job %d at %v, full run %v", inst, i, k, j, got[j], want[j])
				}
			}
		}
		if cut < moves*3/4 {
			t.Errorf("instance %d: %d of %d estimates cut short, want most", inst, cut, moves)
		}
	}
}

// TestFlexAdmitsFront locks the two cases solver's admitFront was made for,
// weighted tardy jobs. On the second setting at J = 200 (seed 1, instance
// 1) a small job due first is late in the split search's order and after
// every insertion from there; moved to the front, with the big job behind
// it just in time, it is on time: FLEX must reach the committed best-known
// value, which came from its own answer (before admitFront it read 3.2%
// above it). On the base case at J = 100 (instance 3) a job of weight
// 0.006 first and on time is better given up for two late jobs: FLEX must
// be within 1% of the best known (3.9% above before the drops).
func TestFlexAdmitsFront(t *testing.T) {
	for _, c := range []struct {
		w        Workload
		instance int
		bound    float64
	}{
		{Workload{Jobs: 200, Slots: 2000, Small: 0.5, Slack: 0.35}, 1, 1 + 1e-9},
		{Workload{Jobs: 100, Slots: 1000, Small: 0.8, Slack: 0.75}, 3, 1.01},
	} {
		path := filepath.Join("testdata", "references", ReferenceFile(c.w, 1, 10))
		refs, err := LoadReferenceSet(path, c.w, 1, 10)
		if err != nil {
			t.Fatal(err)
		}
		ref, ok := refs.Lookup(c.instance, penalty.WeightedTardyJobs)
		if !ok {
			t.Fatalf("%s: no reference for instance %d, weighted_tardy_jobs", path, c.instance)
		}
		p := GenerateInstance(c.w, 1, c.instance)
		p.Metric = penalty.WeightedTardyJobs
		r, err := solver.Flex{}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Value > ref*c.bound {
			t.Errorf("J = %d, instance %d: FLEX %v (%s), the best known %v: %.4f times it, want at most %v",
				c.w.Jobs, c.instance, r.Value, r.Scheme, ref, r.Value/ref, c.bound)
		}
	}
}

// TestFlexOnUnseenSeeds locks instances of seeds the search was not tuned
// on where FLEX was far from the best known value (solver.BestKnown at
// 200,000 evaluations), each fixed by one stage of the search at scale
// (solver):
//   - seed 20's second setting at J = 100, instance 1: the best known
//     order has 5 tardy jobs where FLEX had 6, three jobs in and two out
//     where no one-for-one trade pays; on weighted tardy jobs 2.0011
//     where FLEX had 2.3090, two in for one out (justInTime.admit);
//   - seed 23's base case at J = 100, instance 5: weighted tardy jobs
//     1.8600 where FLEX had 1.9445, one job in for two out (its chain
//     never started: admitFront's budget went to chains of jobs late even
//     first);
//   - seed 21's base case at J = 100, instance 6: 5 tardy jobs where FLEX
//     had 6, a job admitted one place earlier and the one it made late
//     moved earlier too (justInTime.admit);
//   - seed 23's base case at J = 200, instance 0: 8 tardy jobs where FLEX
//     had 9, a late job in the middle of the order given up to let one in
//     (the chain gives up jobs already late first);
//   - seed 21's base case at J = 200, instance 3: max_weighted_lateness
//     balanced over dozens of jobs, 0.13858 where FLEX stopped at 0.17383
//     with four times criticalBudget (criticalIterated);
//   - seed 22's base case at J = 100, instance 3: max_tardiness 0.29149
//     where FLEX stopped at 1.100 times it with twice criticalBudget
//     (criticalIterated);
//   - seed 20's base case at J = 200, instance 2: weighted tardiness
//     1.7295 where FLEX stopped at 1.9151 with job 52 late 120th, where
//     the best known orders have it about 35th (farLate);
//   - seed 24's base case at J = 200, instance 2: weighted tardiness
//     3.3915 where FLEX stopped at 3.5102 with job 163 (little weight,
//     late anyway) 94th, ahead of late jobs of higher weight per unit of
//     work, where the best known orders have it about 160th (smithBack);
//   - seed 25's second setting at J = 200, instance 2: 25 tardy jobs
//     where FLEX had 26 with its budget on tardy jobs then
//     (tardyBoundGrowth);
//   - seed 11's base case at J = 200, instance 3: max_weighted_tardiness
//     0.227908 where FLEX's one chain of kicks stopped at 1.043 times it
//     (iterateCriticals' second chain finds it);
//   - seed 23's second setting at J = 200, instance 2: weighted tardy jobs
//     7.41927 (below the reference search's 7.46133) where FLEX had
//     7.53124 before the exchanges under the jit key ran beside the
//     deadline key's (jitExchanges);
//   - seed 36's base case at J = 200, instance 1: weighted tardiness
//     0.346184 (below the reference search's 0.346251) where every search
//     of FLEX's stopped at 0.4393 to 0.4396, 1.27 times it, before the
//     far-jumping search moved a job to any position (evaluator.farJumps);
//   - seed 36's base case at J = 200, instance 4: 12 tardy jobs where FLEX
//     had 13 before the probes of its admissions ran only until the job
//     admitted completes (solver's latestOnTime): the admission that pays
//     is the twelfth late job's, which the budget reaches since;
//   - seeds 21 and 24's second setting at J = 100, instance 3: weighted
//     tardy jobs 3.00893 and 3.16585 (the references' values) where FLEX
//     had 1.020 and 1.023 times them before its admissions skipped the
//     late jobs that cannot be on time at all (justInTime.admit);
//   - seed 41's base case at J = 50, instance 1: weighted tardy jobs
//     1.57940 (the reference's) where FLEX had 1.105 times it before the
//     budget below 100 jobs fell as 1/J from 50 jobs (dueFlatTimeJobs);
//   - seed 13's second setting at J = 100, instance 3: 10 tardy jobs where
//     FLEX had 11 before the Moore-Hodgson pass ended its search
//     (mooreHodgsonPass);
//   - seed 46's base case at J = 100, instance 2: max_tardiness and
//     max_lateness 1.03989 (the reference's) where FLEX had 1.083 times
//     it before the maxima that read a deadline got twelve times the
//     critical budget at J = 100 (solver's criticalIterated);
//   - seed 45's base case at J = 200, instance 5: weighted tardy jobs
//     1.28933 (the reference's) where FLEX had 1.202 times it before its
//     last admissions weighed a job moved earlier against one given up
//     (solver's lastAdmitShare);
//   - seed 21's base case at J = 100, instance 5: 3 tardy jobs, one fewer
//     than the reference search found, where FLEX had 4 before those
//     admissions;
//   - seed 43's base case at J = 100, instance 0: weighted tardy jobs
//     2.31248 (the reference's) where FLEX had 1.058 times it before the
//     last admissions' chains moved jobs earlier below 150 jobs too and
//     gave up the job that scores best (solver's justInTime.bestDrop);
//   - seed 25's base case at J = 100, instance 5: weighted tardy jobs
//     1.74001 (the reference's) where FLEX had 1.051 times it, and 1.051
//     with the job that scores best given up but no job moved earlier;
//   - seed 43's base case at J = 100, instance 5: 4 tardy jobs where FLEX
//     had 5 (at efforts 1 to 4) before the last admissions' chains also
//     started from a late job's place by deadline (solver's
//     justInTime.admit with atDeadline);
//   - seed 48's base case at J = 200, instance 9: 11 tardy jobs where FLEX
//     had 12 before the same;
//   - seed 22's base case at J = 200, instance 8: weighted tardiness 4.01605
//     (the reference's) where every search of FLEX's ended at 1.15 times it
//     before its last stage swapped a late job with a big one on time
//     ahead of it (solver's bigSwaps);
//   - seed 49's base case at J = 200, instance 5: max_tardiness and
//     max_lateness 0.70926 (the reference's, six jobs within 0.01 of it)
//     where FLEX had 1.062 times it at the default effort and 1.032 at
//     effort 8, before its critical search moved the jobs just ahead of
//     the critical one earlier (solver's criticalAheadJobs).
func TestFlexOnUnseenSeeds(t *testing.T) {
	base200 := Workload{Jobs: 200, Slots: 2000, Small: 0.8, Slack: 0.75}
	base100 := Workload{Jobs: 100, Slots: 1000, Small: 0.8, Slack: 0.75}
	second200 := Workload{Jobs: 200, Slots: 2000, Small: 0.5, Slack: 0.35}
	second100 := Workload{Jobs: 100, Slots: 1000, Small: 0.5, Slack: 0.35}
	base50 := Workload{Jobs: 50, Slots: 500, Small: 0.8, Slack: 0.75}
	for _, c := range []struct {
		w        Workload
		seed     uint64
		instance int
		metric   penalty.Metric
		best     float64 // the best known value
		within   float64 // the ratio to it allowed
	}{
		{second100, 20, 1, penalty.TardyJobs, 5, 1},
		{second100, 20, 1, penalty.WeightedTardyJobs, 2.0011, 1.01},
		{base100, 23, 5, penalty.WeightedTardyJobs, 1.8600, 1.01},
		{base100, 21, 6, penalty.TardyJobs, 5, 1},
		{base200, 23, 0, penalty.TardyJobs, 8, 1},
		{base200, 21, 3, penalty.MaxWeightedLateness, 0.13858, 1.01},
		{base100, 22, 3, penalty.MaxTardiness, 0.29149, 1.01},
		{base200, 20, 2, penalty.WeightedTardiness, 1.7295, 1.02},
		{base200, 24, 2, penalty.WeightedTardiness, 3.3915, 1.01},
		{second200, 25, 2, penalty.TardyJobs, 25, 1},
		{base200, 11, 3, penalty.MaxWeightedTardiness, 0.227908, 1.01},
		{second200, 23, 2, penalty.WeightedTardyJobs, 7.41927, 1.005},
		{base200, 36, 1, penalty.WeightedTardiness, 0.346184, 1.01},
		{base200, 36, 4, penalty.TardyJobs, 12, 1},
		{second100, 21, 3, penalty.WeightedTardyJobs, 3.00893, 1.01},
		{second100, 24, 3, penalty.WeightedTardyJobs, 3.16585, 1.01},
		{base50, 41, 1, penalty.WeightedTardyJobs, 1.57940, 1.01},
		{second100, 13, 3, penalty.TardyJobs, 10, 1},
		{base100, 46, 2, penalty.MaxTardiness, 1.03989, 1.01},
		{base100, 46, 2, penalty.MaxLateness, 1.03989, 1.01},
		{base200, 45, 5, penalty.WeightedTardyJobs, 1.28933, 1.01},
		{base100, 21, 5, penalty.TardyJobs, 3, 1},
		{base100, 43, 0, penalty.WeightedTardyJobs, 2.31248, 1.01},
		{base100, 25, 5, penalty.WeightedTardyJobs, 1.74001, 1.01},
		{base100, 43, 5, penalty.TardyJobs, 4, 1},
		{base200, 48, 9, penalty.TardyJobs, 11, 1},
		{base200, 22, 8, penalty.WeightedTardiness, 4.01605, 1.01},
		{base200, 49, 5, penalty.MaxTardiness, 0.70926, 1.001},
		{base200, 49, 5, penalty.MaxLateness, 0.70926, 1.001},
	} {
		p := GenerateInstance(c.w, c.seed, c.instance)
		p.Metric = c.metric
		r, err := solver.Flex{}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		if r.Value > c.best*c.within {
			t.Errorf("%s, J = %d, seed %d, instance %d: FLEX %v (%s), the best known %v: %.4f times it, want at most %v",
				c.metric, c.w.Jobs, c.seed, c.instance, r.Value, r.Scheme, c.best, r.Value/c.best, c.within)
		}
	}
}

// TestFlexLeavesNoLateJobToFront: on weighted tardy jobs at scale FLEX's
// answer has no late job whose move to the front of its order alone would
// lower the objective (solver's admitFront tries those moves again after
// the walks). On the unseen seed 10 at J = 200, instance 7, that move of
// one job was 4.9% of the objective before.
func TestFlexLeavesNoLateJobToFront(t *testing.T) {
	for _, c := range []struct {
		w        Workload
		seed     uint64
		instance int
	}{
		{Workload{Jobs: 200, Slots: 2000, Small: 0.8, Slack: 0.75}, 10, 7},
		{Workload{Jobs: 100, Slots: 1000, Small: 0.5, Slack: 0.35}, 1, 0},
	} {
		p := GenerateInstance(c.w, c.seed, c.instance)
		p.Metric = penalty.WeightedTardyJobs
		r, err := solver.Flex{}.Solve(p)
		if err != nil {
			t.Fatal(err)
		}
		n := len(p.Jobs)
		in := mps.Input{Now: p.Now, Slots: p.Slots, Min: make([]int, n), Max: make([]int, n), Work: make([]float64, n)}
		for i, j := range p.Jobs {
			in.Min[i], in.Max[i], in.Work[i] = j.Min, j.Max, j.Work
		}
		var pk mps.Packer
		pk.Bind(in)
		order, done := make([]int, n), make([]float64, n)
		pk.BoundCompletions(r.Order, done)
		if v, err := solver.Objective(p, done); err != nil || math.Abs(v-r.Value) > 1e-9*r.Value {
			t.Fatalf("FLEX's order scores %v here (%v), FLEX said %v", v, err, r.Value)
		}
		late := 0
		for x, k := range r.Order {
			if x == 0 || r.Plan.Completions[k] <= p.Jobs[k].Deadline {
				continue
			}
			late++
			order[0] = k
			copy(order[1:x+1], r.Order[:x])
			copy(order[x+1:], r.Order[x+1:])
			pk.BoundCompletions(order, done)
			v, err := solver.Objective(p, done)
			if err != nil {
				t.Fatal(err)
			}
			if v < r.Value*(1-1e-9) {
				t.Errorf("seed %d, J = %d, instance %d: job %d (late, %d in the order) first scores %v, FLEX answered %v",
					c.seed, c.w.Jobs, c.instance, k, x, v, r.Value)
			}
		}
		if late == 0 {
			t.Errorf("seed %d, J = %d, instance %d: no late job in FLEX's answer: the case tests nothing", c.seed, c.w.Jobs, c.instance)
		}
	}
}
