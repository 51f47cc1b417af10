// Package solvertest is the conformance suite every allocation policy
// passes (in the manner of river's riverdrivertest): capacity respected,
// bounds honoured for live jobs, nothing to finished jobs, work conserved,
// no slack left while demand remains, deterministic under permutation of
// the input, and the reported objective equal to package penalty's
// evaluation of the returned plan. It also generates random valid problems
// for property and fuzz tests.
package solvertest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/solvertest/largejobs"
)

// Tolerances of the checks: schedules are float64 arithmetic over many
// intervals, so work and times compare with a relative tolerance.
const (
	// RelTol is the relative tolerance on work, times and objective values.
	RelTol = 1e-6
	// liveTol is the relative margin by which a job's completion must pass
	// an interval's start for the job to count as live in it: a few ulps.
	// Completions are interval ends, computed by the same additions, so the
	// margin only absorbs rounding; anything coarser misjudges an interval
	// shorter than the margin times the clock (at t = 8.4e6 s, a margin of
	// 1e-9 took a job finishing 0.004 s into its only interval for one
	// that had finished before it).
	liveTol = 4 * 0x1p-52
)

// Traits says which guarantees a policy makes beyond the common ones.
type Traits struct {
	// HonorsMinima: every live job holds at least its (normalised) minimum.
	// FIFO takes every minimum as 0.
	HonorsMinima bool
	// NoSlack: no slot is idle while a live job is below its maximum.
	NoSlack bool
}

// Check returns every violation of the conformance rules by r as an answer
// to p; nil means r conforms.
func Check(p solver.Problem, r solver.Result, tr Traits) []string {
	var bad []string
	fail := func(format string, args ...any) { bad = append(bad, fmt.Sprintf(format, args...)) }
	n := len(p.Jobs)
	if len(r.Allocations) != n || len(r.Plan.Completions) != n || len(r.Plan.First) != n {
		return []string{fmt.Sprintf("result sizes: %d allocations, %d completions, %d first for %d jobs",
			len(r.Allocations), len(r.Plan.Completions), len(r.Plan.First), n)}
	}
	maxs, mins := Bounds(p)
	if r.NormalizedMinima {
		mins = make([]int, n) // the normalised minima are checked by the solver's own tests
	}
	for i, a := range r.Allocations {
		if a.ID != p.Jobs[i].ID {
			fail("allocations[%d].id = %q, want %q (request order)", i, a.ID, p.Jobs[i].ID)
		}
		if a.Slots != r.Plan.First[i] {
			fail("allocations[%d].slots = %d but the plan's first interval has %d", i, a.Slots, r.Plan.First[i])
		}
		if a.Reason == "" {
			fail("allocations[%d] has no reason", i)
		}
	}
	done := make([]float64, n)
	prevEnd := p.Now
	r.Plan.Each(func(k int, start, end float64, slots []int) {
		if !(end > start) {
			fail("interval %d: empty or reversed [%v, %v]", k, start, end)
		}
		if !near(start, prevEnd) {
			fail("interval %d starts at %v, previous ended at %v", k, start, prevEnd)
		}
		prevEnd = end
		sum, idleDemand := 0, false
		for j, s := range slots {
			sum += s
			// Live through this interval: completing after its start by more
			// than clock rounding (RelTol is far coarser than a short
			// interval).
			live := r.Plan.Completions[j]-start > liveTol*math.Max(1, math.Abs(start))
			if !live {
				if s != 0 {
					fail("interval %d: finished job %s holds %d slots", k, p.Jobs[j].ID, s)
				}
				continue
			}
			if s > maxs[j] {
				fail("interval %d: job %s holds %d > max %d", k, p.Jobs[j].ID, s, maxs[j])
			}
			if tr.HonorsMinima && s < mins[j] {
				fail("interval %d: job %s holds %d < min %d", k, p.Jobs[j].ID, s, mins[j])
			}
			if s < maxs[j] {
				idleDemand = true
			}
			done[j] += float64(s) * (end - start)
		}
		if sum > p.Slots {
			fail("interval %d: %d slots allocated > %d", k, sum, p.Slots)
		}
		if tr.NoSlack && idleDemand && sum < p.Slots {
			fail("interval %d: %d slots idle while a live job is below its max", k, p.Slots-sum)
		}
		if k == 0 {
			for j, s := range slots {
				if s != r.Plan.First[j] {
					fail("plan.first[%d] = %d, first interval has %d", j, r.Plan.First[j], s)
				}
			}
		}
	})
	for j, job := range p.Jobs {
		if math.Abs(done[j]-job.Work) > RelTol*math.Max(1, job.Work) {
			fail("job %s: plan does %v slot-seconds of work, want %v", job.ID, done[j], job.Work)
		}
	}
	if want := Objective(p, r.Plan.Completions); !near(r.Value, want) {
		fail("reported objective %v, penalty of the plan is %v", r.Value, want)
	}
	return bad
}

// Objective evaluates p's objective for the given completion times with
// package penalty, independently of the solver.
func Objective(p solver.Problem, completions []float64) float64 {
	metric := p.Metric
	if metric == "" {
		metric = penalty.AvgResponseTime
	}
	info, _ := penalty.Lookup(metric)
	ms := make([]penalty.Metric, len(p.Jobs))
	js := make([]penalty.Job, len(p.Jobs))
	for i, j := range p.Jobs {
		ms[i] = metric
		if j.Metric != "" {
			ms[i] = j.Metric
		}
		total := j.TotalWork
		if total == 0 {
			total = j.Work
		}
		js[i] = penalty.Job{Submitted: j.Submitted, Weight: j.Weight, Deadline: j.Deadline,
			HasDeadline: j.HasDeadline, Iso: total / float64(min(j.Max, p.Slots)), SLA: j.SLA}
	}
	return penalty.Cost(info.Aggregate, ms, js, completions)
}

// Bounds returns each job's effective max and min before normalisation:
// max clamped to the slots and to the demand, min clamped to max.
func Bounds(p solver.Problem) (maxs, mins []int) {
	maxs, mins = make([]int, len(p.Jobs)), make([]int, len(p.Jobs))
	for i, j := range p.Jobs {
		maxs[i] = min(j.Max, p.Slots)
		if j.Demand > 0 {
			maxs[i] = min(maxs[i], j.Demand)
		}
		mins[i] = min(j.Min, maxs[i])
	}
	return maxs, mins
}

func near(a, b float64) bool {
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return a == b
	}
	return math.Abs(a-b) <= RelTol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// Random returns a random valid problem of n jobs for metric m: works
// spread over four orders of magnitude, minima that sometimes exceed the
// slots (to exercise normalisation), caps above and below the slots,
// deadlines and three sorted SLA steps on every job.
func Random(rng *rand.Rand, n int, m penalty.Metric) solver.Problem {
	slots := 1 + rng.IntN(60)
	p := solver.Problem{Slots: slots, Now: float64(rng.IntN(5)), Metric: m}
	for i := 0; i < n; i++ {
		work := math.Pow(10, rng.Float64()*4) / 10
		if rng.IntN(4) == 0 && i > 0 {
			work = p.Jobs[i-1].Work // ties
		}
		mx := 1 + rng.IntN(slots+slots/2)
		j := solver.Job{
			ID:          fmt.Sprintf("j%02d", i),
			Min:         rng.IntN(max(1, slots/n+2)),
			Max:         mx,
			Work:        work,
			Submitted:   -float64(rng.IntN(10)),
			Weight:      rng.Float64() * 2,
			Deadline:    p.Now + rng.Float64()*work/float64(max(1, slots/4)),
			HasDeadline: true,
		}
		ds := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		ps := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		sort.Float64s(ds)
		sort.Float64s(ps)
		for k := range ds {
			j.SLA = append(j.SLA, penalty.Step{Deadline: p.Now + float64(k) + ds[k]*work/float64(slots), Penalty: ps[k]})
		}
		p.Jobs = append(p.Jobs, j)
	}
	return p
}

// Shuffled returns p with its jobs in a random order (a copy).
func Shuffled(rng *rand.Rand, p solver.Problem) solver.Problem {
	q := p
	q.Jobs = append([]solver.Job(nil), p.Jobs...)
	rng.Shuffle(len(q.Jobs), func(a, b int) { q.Jobs[a], q.Jobs[b] = q.Jobs[b], q.Jobs[a] })
	return q
}

// Run runs the conformance suite against s: random problems of every
// metric and several sizes must conform (Check), and the answer must not
// depend on the order of the jobs in the request.
func Run(t *testing.T, s solver.Solver, tr Traits, maxJobs int) {
	t.Helper()
	for _, info := range penalty.All() {
		t.Run(string(info.Name), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(len(info.Name))))
			for trial := 0; trial < 30; trial++ {
				n := 1 + rng.IntN(maxJobs)
				p := Random(rng, n, info.Name)
				r, err := s.Solve(p)
				if err != nil {
					t.Fatalf("trial %d: %v", trial, err)
				}
				for _, msg := range Check(p, r, tr) {
					t.Errorf("trial %d (%d jobs, %d slots): %s", trial, n, p.Slots, msg)
				}
				q := Shuffled(rng, p)
				r2, err := s.Solve(q)
				if err != nil {
					t.Fatalf("trial %d shuffled: %v", trial, err)
				}
				byID := map[string]solver.Allocation{}
				for _, a := range r.Allocations {
					byID[a.ID] = a
				}
				for _, a := range r2.Allocations {
					if byID[a.ID] != a {
						t.Errorf("trial %d: job %s gets %+v, but %+v with the jobs shuffled", trial, a.ID, byID[a.ID], a)
					}
				}
				if r.Value != r2.Value {
					t.Errorf("trial %d: objective %v, but %v with the jobs shuffled", trial, r.Value, r2.Value)
				}
			}
		})
	}
}

// Large returns a problem shaped like FLEX section 4.1 at any size, for
// benchmarks: n jobs on slots slots, 80% small jobs and 20% large ones
// (a 1:10 work ratio), total work 10 * slots slot-seconds, max slots the
// job's task count at 0.3 slot-seconds a task (capped by the slots), minima
// summing to a quarter of the slots, uniform weights, and deadlines and
// three SLA steps uniform on [0, total work / slots].
func Large(rng *rand.Rand, n, slots int, m penalty.Metric) solver.Problem {
	p := solver.Problem{Slots: slots, Metric: m}
	for i, d := range largejobs.Draw(rng, n, slots) {
		p.Jobs = append(p.Jobs, solver.Job{
			ID:          fmt.Sprintf("job%06d", i),
			Min:         d.Min,
			Max:         d.Max,
			Work:        d.Work,
			Weight:      d.Weight,
			Deadline:    d.Deadline,
			HasDeadline: true,
			SLA:         d.SLA,
		})
	}
	return p
}
