package mps

// Plan is a malleable schedule: a sequence of intervals, each with a fixed
// number of slots per job, and every job's projected completion time.
//
// Intervals are delta-encoded: Interval k lists only the jobs whose slot
// count differs from interval k-1 (interval 0 lists every job with a
// non-zero count). MPS changes each job's allocation O(1) times as the slack
// boundary moves down the order, so a plan of J jobs takes O(J) space where a
// dense matrix would take O(J^2). Use Each or First to read it densely.
type Plan struct {
	// Intervals are contiguous: Intervals[k].Start == Intervals[k-1].End.
	Intervals []Interval
	// Completions holds each job's completion time, seconds on the caller's
	// clock, indexed like the input jobs.
	Completions []float64
	// First holds each job's slots in the first interval (what the caller
	// enforces now, FLEX 2.2), indexed like the input jobs: the MPS
	// allocation at Now. It equals the dense slots of Intervals[0] except in
	// one degenerate case: when the first interval is shorter than an ulp of
	// the absolute clock (work far below a microsecond with Now a Unix time)
	// it is folded into the next one (see mps.Pack), and First still says
	// what to run now.
	First []int
}

// Interval is one piece of a plan: from Start to End (seconds) the slot
// counts are those of the previous interval with Changes applied.
type Interval struct {
	Start, End float64
	Changes    []Change
}

// Change sets job Job's slot count to Slots from the interval's start.
type Change struct {
	Job   int
	Slots int
}

// Each calls fn for every interval in order with the dense slot counts of
// that interval, indexed like the input jobs. fn must not retain slots: it is
// reused between calls. Each costs O(J) per interval; use it for output and
// tests, not on a hot path over large plans.
func (p *Plan) Each(fn func(k int, start, end float64, slots []int)) {
	slots := make([]int, len(p.Completions))
	for k, iv := range p.Intervals {
		for _, c := range iv.Changes {
			slots[c.Job] = c.Slots
		}
		fn(k, iv.Start, iv.End, slots)
	}
}
