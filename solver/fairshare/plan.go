package fairshare

import (
	"math"

	"github.com/flexd/flexd/solver/mps"
)

// CompletionTolerance is the relative slack within which two jobs count as
// completing at the same instant: a job whose remaining work would last at
// most (1 + CompletionTolerance) times the interval completes with the job
// that ends it. Without it, floating-point dust would leave a job with
// 1e-13 slot-seconds to do and an interval of 1e-15 seconds for it.
const CompletionTolerance = 1e-9

// planRecompute is FAIR's plan computed the direct way, as
// docs/fair-share.md states it ("In a plan ... FAIR is recomputed every time
// a job completes"): at every completion the live jobs' fair shares by
// Compute with variant v, turned into slots by Slots, held until the first
// live job completes, which leaves; then recomputed, until every job is
// done. It is the definition Plan must reproduce bit for bit and its test
// oracle, and it still serves the YARN variant (see Plan).
//
// Each interval costs a fair-share computation (about 30 passes over the
// live jobs: the doubling and Iterations bisection steps) and a rounding,
// O(J log J), and there are at most J intervals, so planRecompute is
// O(J^2 log J) time: 14-17 s at J = 10,000 (issue 13).
func planRecompute(v Variant, jobs []Job, total int, now float64) mps.Plan {
	n := len(jobs)
	var (
		c      computer
		r      rounder
		sched  = make([]Schedulable, 0, n)
		sub    = make([]Job, 0, n)
		shares = make([]float64, n)
	)
	return planWith(jobs, now, func(live []int, al []int) {
		sched, sub = sched[:0], sub[:0]
		for _, j := range live {
			sched = append(sched, jobs[j].Schedulable())
			sub = append(sub, jobs[j])
		}
		sh := shares[:len(live)]
		c.compute(sh, v, sched, total)
		r.round(al, sh, sub, total)
	})
}

// planWith is planRecompute's loop with the allocation of each interval
// made by alloc: given the live jobs in ascending index, it sets al[k] to
// the slots of live[k]. planYARN gives the same allocations as
// planRecompute's, computed faster, so the loop is shared to keep the rest
// (the intervals, the completions, the work) the same operations.
func planWith(jobs []Job, now float64, alloc func(live []int, al []int)) mps.Plan {
	n := len(jobs)
	p := mps.Plan{Completions: make([]float64, n), First: make([]int, n)}

	remaining := make([]float64, n)
	live := make([]int, 0, n) // ascending job index, kept so as jobs leave
	for j, job := range jobs {
		if job.Work > 0 {
			remaining[j] = job.Work
			live = append(live, j)
		} else {
			p.Completions[j] = now
		}
	}

	var (
		slots = make([]int, n)
		cur   = make([]int, n) // dense slots of this interval
		prev  = make([]int, n) // dense slots of the previous interval
		t     = now
	)
	for len(live) > 0 {
		al := slots[:len(live)]
		alloc(live, al)

		// The interval lasts until the first live job with slots completes.
		dt := math.Inf(1)
		for k, j := range live {
			if al[k] > 0 {
				dt = min(dt, remaining[j]/float64(al[k]))
			}
		}
		if math.IsInf(dt, 1) || dt != dt {
			for _, j := range live {
				p.Completions[j] = math.Inf(1)
			}
			break
		}
		end := t + dt
		if !(end > t) {
			// The next completion is closer than the clock's resolution at t
			// (a leftover of floating-point dust): no interval can represent
			// it, so the jobs that end now complete at t, with a negligible
			// amount of work unaccounted, and the plan goes on.
			next := live[:0]
			for k, j := range live {
				if s := float64(al[k]); s > 0 && remaining[j]/s <= dt*(1+CompletionTolerance) {
					p.Completions[j] = t
					continue
				}
				next = append(next, j)
			}
			live = next
			continue
		}

		clear(cur)
		for k, j := range live {
			cur[j] = al[k]
		}
		iv := mps.Interval{Start: t, End: end}
		for j := range cur {
			if cur[j] != prev[j] {
				iv.Changes = append(iv.Changes, mps.Change{Job: j, Slots: cur[j]})
			}
		}
		if len(p.Intervals) == 0 {
			copy(p.First, cur)
		}
		p.Intervals = append(p.Intervals, iv)
		prev, cur = cur, prev

		// Account the work and retire every job that ends with this interval.
		next := live[:0]
		for k, j := range live {
			s := float64(al[k])
			if s > 0 && remaining[j]/s <= dt*(1+CompletionTolerance) {
				p.Completions[j] = end
				remaining[j] = 0
				continue
			}
			remaining[j] -= s * dt
			next = append(next, j)
		}
		live = next
		t = end
	}
	return p
}
