package fairshare

import (
	"container/heap"
	"fmt"
	"math"
)

// Job is one job of a FAIR phase problem, as Slots and Plan see it.
type Job struct {
	// ID identifies the job; it is the last tie-breaker.
	ID string
	// Min and Max bound the job's slots. Slots and Plan expect them
	// normalised by the caller (docs/algorithms.md section 1): 0 <= Min <=
	// Max <= S and the sum of Min <= S.
	Min, Max int
	// Weight is the job's weight, >= 0 and finite.
	Weight float64
	// Submitted is the job's arrival time, seconds on the caller's clock; an
	// earlier job wins a tie.
	Submitted float64
	// Work is the remaining work in slot-seconds (Plan only): with linear
	// speedup s slots for dt seconds do s*dt of it (FLEX 2.5).
	Work float64
}

// Schedulable returns the job as Compute sees it.
func (j Job) Schedulable() Schedulable {
	return Schedulable{Weight: j.Weight, Min: j.Min, Max: j.Max}
}

// Slots derives a feasible integer allocation of total slots from fair
// shares (docs/fair-share.md, "From fair shares to slots"), indexed like
// jobs: each share floored and clamped into [Min, Max], then the remaining
// slots handed one at a time to the job furthest below its fair share
// (share - slots: after flooring, the largest fractional part, so each job
// gets at most one in the first round; a job held at a minimum above its
// share is already ahead of it and comes after), ties to the job with fewer
// slots per
// unit of weight, then the earlier Submitted, then the smaller ID, then the
// earlier index. A job never goes above Max.
//
// When the floors add up to more than the target (YARN's truncation at the
// upper end makes 3 x 3414 out of 10240) slots are taken back one at a time
// in exactly the reverse order, never below Min.
//
// With the documented preconditions (0 <= Min <= Max <= total, sum of Min
// <= total) the result sums to exactly min(total, sum of Max): no slack while
// demand remains, never more than total. A NaN share counts as 0. Slots
// panics if shares and jobs differ in length (programmer error).
func Slots(shares []float64, jobs []Job, total int) []int {
	if len(shares) != len(jobs) {
		panic(fmt.Sprintf("fairshare: Slots got %d shares for %d jobs", len(shares), len(jobs)))
	}
	out := make([]int, len(jobs))
	var r rounder
	r.round(out, shares, jobs, total)
	return out
}

// rounder holds scratch space so that Plan's repeated roundings do not
// allocate.
type rounder struct {
	h slotHeap
}

func (r *rounder) round(out []int, shares []float64, jobs []Job, total int) {
	sumMax, sum := 0, 0
	for i, j := range jobs {
		sumMax += j.Max
		share := shares[i]
		if share != share {
			share = 0
		}
		// Clamp in float64 first: converting an out-of-range float to int is
		// implementation-defined in Go.
		f := math.Floor(share)
		switch {
		case f <= float64(j.Min):
			out[i] = j.Min
		case f >= float64(j.Max):
			out[i] = j.Max
		default:
			out[i] = int(f)
		}
		out[i] = max(out[i], 0)
		sum += out[i]
	}
	target := max(min(total, sumMax), 0)
	h := &r.h
	h.shares, h.jobs, h.slots = shares, jobs, out
	h.idx = h.idx[:0]
	switch {
	case sum < target:
		h.take = false
		for i, j := range jobs {
			if out[i] < j.Max {
				h.idx = append(h.idx, i)
			}
		}
		heap.Init(h)
		for sum < target && h.Len() > 0 {
			i := h.idx[0]
			out[i]++
			sum++
			if out[i] >= jobs[i].Max {
				heap.Pop(h)
			} else {
				heap.Fix(h, 0)
			}
		}
	case sum > target:
		h.take = true
		for i, j := range jobs {
			if out[i] > j.Min && out[i] > 0 {
				h.idx = append(h.idx, i)
			}
		}
		heap.Init(h)
		for sum > target && h.Len() > 0 {
			i := h.idx[0]
			out[i]--
			sum--
			if out[i] <= jobs[i].Min || out[i] <= 0 {
				heap.Pop(h)
			} else {
				heap.Fix(h, 0)
			}
		}
	}
	h.shares, h.jobs, h.slots = nil, nil, nil
}

// slotHeap orders job indexes by who gets the next slot (take == false) or
// who gives one back first (take == true, the exact reverse order).
type slotHeap struct {
	idx    []int
	shares []float64
	jobs   []Job
	slots  []int
	take   bool
}

func (h *slotHeap) Len() int      { return len(h.idx) }
func (h *slotHeap) Swap(a, b int) { h.idx[a], h.idx[b] = h.idx[b], h.idx[a] }
func (h *slotHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *slotHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

func (h *slotHeap) Less(a, b int) bool {
	i, j := h.idx[a], h.idx[b]
	if h.take {
		return h.before(j, i)
	}
	return h.before(i, j)
}

// before reports whether job i gets the next slot ahead of job j.
func (h *slotHeap) before(i, j int) bool {
	if di, dj := h.deficit(i), h.deficit(j); di != dj {
		return di > dj
	}
	if pi, pj := h.perWeight(i), h.perWeight(j); pi != pj {
		return pi < pj
	}
	if si, sj := h.jobs[i].Submitted, h.jobs[j].Submitted; si != sj {
		return si < sj
	}
	if h.jobs[i].ID != h.jobs[j].ID {
		return h.jobs[i].ID < h.jobs[j].ID
	}
	return i < j
}

// deficit is how far the job is below its fair share, in slots.
func (h *slotHeap) deficit(i int) float64 {
	s := h.shares[i]
	if s != s {
		s = 0
	}
	return s - float64(h.slots[i])
}

// perWeight is slots per unit of weight; a job without weight ranks last.
func (h *slotHeap) perWeight(i int) float64 {
	w := h.jobs[i].Weight
	if !(w > 0) {
		return math.Inf(1)
	}
	return float64(h.slots[i]) / w
}
