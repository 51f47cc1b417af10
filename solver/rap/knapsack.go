package rap

import (
	"math"
	"slices"
)

// Choice is one useful allocation of a job in a non-convex minisum RAP:
// holding Slots slots costs Value (F_j(Slots) in FLEX section 3.2 terms).
type Choice struct {
	Slots int
	Value float64
}

// DefaultCellBudget is the DP size Knapsack allows when the caller passes
// cellBudget <= 0: 50 M cells, about 40 ms of CPU at the 0.8 ns a cell
// BenchmarkKnapsack measures, and at most 50 MB of choice table (bytes;
// twice that for jobs with more than 256 useful choices).
const DefaultCellBudget = 50_000_000

// Knapsack solves a non-convex minisum RAP given as a multiple-choice
// knapsack (docs/algorithms.md section 4 item 1; FLEX section 3.2's DP):
// pick one choice per job, minimising sum_j choices[j][pick[j]].Value subject
// to sum_j choices[j][pick[j]].Slots <= slots. For a step or ramp F_j the
// caller lists Min_j and, for each lower penalty level, the least s reaching
// it; the values need not be sorted. Every job needs at least one choice
// (an empty list panics), and values must not be NaN.
//
// Choices that another choice of the same job dominates (no more slots, no
// higher value; ties keep the lower index) are dropped first, and so are
// choices that cannot fit. With C = slots - sum_j (fewest slots of job j),
// the exact paths are:
//
//   - every job with two useful choices and the same value drop (the number
//     of tardy jobs): admit upgrades by fewest extra slots, then lower index,
//     a Moore-Hodgson-like greedy, exact because each admitted job saves the
//     same; O(J log J), cells = 0;
//   - otherwise a DP over one row of C+1 values and a byte (uint16 past 256
//     useful choices) per cell naming the job's choice, with unrolled loops
//     for two choices (the weighted tardy jobs' 0/1 knapsack, O(J C)) and
//     three; O(C * sum of choices) in all.
//
// Ties prefer a job's choice with fewer slots. cells is the DP size: over
// the jobs with more than one useful choice, taken by largest extra, the
// sum of (useful choices) x (capacities reachable so far + 1), at most
// (C+1) x (their useful choices). When it exceeds cellBudget
// (DefaultCellBudget when cellBudget <= 0), or when sum_j (fewest slots) >
// slots, Knapsack returns exact == false with a stated approximation: start
// every job at its fewest slots and repeatedly take the upgrade with the
// largest value drop per extra slot that still fits (ties: lower job
// index, then fewer slots), the greedy of the LP relaxation. The pick is
// then feasible whenever the fewest-slot choices fit.
func Knapsack(slots int, choices [][]Choice, cellBudget int) (pick []int, cells int, exact bool) {
	if cellBudget <= 0 {
		cellBudget = DefaultCellBudget
	}
	n := len(choices)
	pick = make([]int, n)
	var idx []int
	base := 0
	for j, cs := range choices {
		if len(cs) == 0 {
			panic("rap: job without choices")
		}
		k0 := 0
		for k, c := range cs {
			if c.Slots < cs[k0].Slots || (c.Slots == cs[k0].Slots && c.Value < cs[k0].Value) {
				k0 = k
			}
		}
		pick[j] = k0
		base += cs[k0].Slots
	}
	capacity := slots - base
	if capacity < 0 {
		return pick, 0, false
	}

	// The useful choices of job j are items[off[j]:off[j+1]]: its fewest-
	// slot choice first, then strictly more slots for strictly less value.
	off := make([]int, n+1)
	items := make([]item, 0, n)
	var multi []int
	maxM := 1
	sameDrop, drop := true, math.NaN()
	for j, cs := range choices {
		off[j] = len(items)
		b := cs[pick[j]].Slots
		idx = idx[:0]
		for k := range cs {
			idx = append(idx, k)
		}
		slices.SortFunc(idx, func(a, c int) int {
			switch {
			case cs[a].Slots != cs[c].Slots:
				return cs[a].Slots - cs[c].Slots
			case cs[a].Value < cs[c].Value:
				return -1
			case cs[a].Value > cs[c].Value:
				return 1
			}
			return a - c
		})
		items = append(items, item{0, cs[idx[0]].Value, idx[0]})
		for _, k := range idx[1:] {
			e := cs[k].Slots - b
			if e > capacity {
				break
			}
			if cs[k].Value < items[len(items)-1].v {
				items = append(items, item{e, cs[k].Value, k})
			}
		}
		if m := len(items) - off[j]; m > 1 {
			multi = append(multi, j)
			maxM = max(maxM, m)
			d := items[off[j]].v - items[off[j]+1].v
			if m > 2 || (!math.IsNaN(drop) && d != drop) {
				sameDrop = false
			}
			drop = d
		}
	}
	off[n] = len(items)
	if len(multi) == 0 {
		return pick, 0, true
	}

	if sameDrop {
		// Every upgrade saves the same, so the most upgrades win: fewest
		// extra slots first (FLEX's tardy-jobs special case).
		slices.SortStableFunc(multi, func(a, b int) int { return items[off[a]+1].e - items[off[b]+1].e })
		for _, j := range multi {
			if it := items[off[j]+1]; it.e <= capacity {
				capacity -= it.e
				pick[j] = it.k
			}
		}
		return pick, 0, true
	}

	// The DP visits jobs by largest extra (then index), which keeps the
	// reachable capacities, and so the cells, small for as long as possible.
	slices.SortStableFunc(multi, func(a, b int) int { return items[off[a+1]-1].e - items[off[b+1]-1].e })
	reach := 0
	for _, j := range multi {
		reach = min(capacity, reach+items[off[j+1]-1].e)
		cells += (off[j+1] - off[j]) * (reach + 1)
	}
	switch {
	case cells > cellBudget:
		ratioGreedy(pick, items, off, multi, capacity)
		return pick, cells, false
	case maxM <= 1<<8:
		mckp[uint8](pick, items, off, multi, capacity)
	case maxM <= 1<<16:
		mckp[uint16](pick, items, off, multi, capacity)
	default:
		ratioGreedy(pick, items, off, multi, capacity)
		return pick, cells, false
	}
	return pick, cells, true
}

// item is one useful choice: e slots above the job's fewest, value v,
// original index k.
type item struct {
	e int
	v float64
	k int
}

// mckp is the exact multiple-choice DP: dp[c] is the least total value
// of the jobs so far with at most c extra slots, one row updated in place
// from the top (each cell reads only cells at or below it), and a table
// names each job's choice per capacity for the walk back. Jobs run in
// order of their largest extra (then index) and each job's row stops at
// reach, the sum of the largest extras so far: past it dp is constant and
// the choice the same as at reach, so neither is stored.
func mckp[T uint8 | uint16](pick []int, items []item, off, multi []int, capacity int) {
	dp := make([]float64, capacity+1)
	rowOff := make([]int, len(multi)+1)
	reach := 0
	for q, j := range multi {
		reach = min(capacity, reach+items[off[j+1]-1].e)
		rowOff[q+1] = rowOff[q] + reach + 1
	}
	tbl := make([]T, rowOff[len(multi)])
	prev := 0
	for q, j := range multi {
		it := items[off[j]:off[j+1]]
		row := tbl[rowOff[q]:rowOff[q+1]]
		reach := len(row) - 1
		for c := prev + 1; c <= reach; c++ {
			dp[c] = dp[prev]
		}
		prev = reach
		v0 := it[0].v
		switch len(it) {
		case 2:
			e1, v1 := it[1].e, it[1].v
			for c := reach; c >= e1; c-- {
				if t := dp[c-e1] + v1; t < dp[c]+v0 {
					dp[c], row[c] = t, 1
				} else {
					dp[c] += v0
				}
			}
			for c := min(e1-1, reach); c >= 0; c-- {
				dp[c] += v0
			}
		case 3:
			e1, v1, e2, v2 := it[1].e, it[1].v, it[2].e, it[2].v
			for c := reach; c >= e2; c-- {
				best, bk := dp[c]+v0, T(0)
				if t := dp[c-e1] + v1; t < best {
					best, bk = t, 1
				}
				if t := dp[c-e2] + v2; t < best {
					best, bk = t, 2
				}
				dp[c], row[c] = best, bk
			}
			for c := min(e2-1, reach); c >= 0; c-- {
				best, bk := dp[c]+v0, T(0)
				if c >= e1 {
					if t := dp[c-e1] + v1; t < best {
						best, bk = t, 1
					}
				}
				dp[c], row[c] = best, bk
			}
		default:
			for c := reach; c >= 0; c-- {
				best, bk := dp[c]+v0, 0
				for k := 1; k < len(it) && it[k].e <= c; k++ {
					if t := dp[c-it[k].e] + it[k].v; t < best {
						best, bk = t, k
					}
				}
				dp[c], row[c] = best, T(bk)
			}
		}
	}
	c := capacity
	for q := len(multi) - 1; q >= 0; q-- {
		j := multi[q]
		row := tbl[rowOff[q]:rowOff[q+1]]
		it := items[off[j]+int(row[min(c, len(row)-1)])]
		pick[j] = it.k
		c -= it.e
	}
}

// ratioGreedy is Knapsack's stated approximation: from the fewest-slot
// choices, repeatedly apply the upgrade with the largest value drop per
// extra slot that fits the slots left (ties: lower job index, then fewer
// slots). A lazy heap holds each job's best upgrade; an entry found stale
// because the slots left shrank is re-keyed, which only lowers it.
func ratioGreedy(pick []int, items []item, off, multi []int, capacity int) {
	cur := make([]int, len(pick)) // local item index per job
	best := func(j int) (int, float64) {
		it := items[off[j]:off[j+1]]
		c := it[cur[j]]
		bk, br := -1, 0.0
		for k := cur[j] + 1; k < len(it) && it[k].e-c.e <= capacity; k++ {
			if r := (c.v - it[k].v) / float64(it[k].e-c.e); bk < 0 || r > br {
				bk, br = k, r
			}
		}
		return bk, br
	}
	h := make([]step, 0, len(multi))
	for _, j := range multi {
		if k, r := best(j); k >= 0 {
			h = append(h, step{g: r, j: j})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for len(h) > 0 {
		j := h[0].j
		k, r := best(j)
		switch {
		case k < 0:
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		case r != h[0].g:
			h[0].g = r
		default:
			capacity -= items[off[j]+k].e - items[off[j]+cur[j]].e
			cur[j] = k
			pick[j] = items[off[j]+k].k
			if k, r := best(j); k >= 0 {
				h[0].g = r
			} else {
				h[0] = h[len(h)-1]
				h = h[:len(h)-1]
			}
		}
		siftDown(h, 0)
	}
}
