package rap

// Greedy solves a minisum RAP by Fox's marginal analysis (FLEX section 3.2,
// ref. [15]; docs/algorithms.md section 4 item 1): starting from the minima,
// it repeatedly gives one slot to the job whose next slot lowers the
// objective most (ties: lower index), until no slot is left or no job gains
// from one. It is exact when every F_j is convex (marginal gains
// F_j(s) - F_j(s+1) non-increasing in s) and a heuristic otherwise.
//
// It costs O(J + R log J) time and R + 2J evaluations of F, where
// R = Slots - sum_j Min[j].
func Greedy(p Problem) []int {
	n := p.jobs()
	s, left := p.minima()
	limit := make([]int, n)
	for j := range limit {
		_, limit[j] = p.bounds(j)
	}
	greedyFill(&p, s, limit, left)
	return s
}

// step is a heap entry: job j's next slot gains g; next is F_j at one more
// slot than the job now holds, kept so that each step costs one evaluation.
type step struct {
	g    float64
	next float64
	j    int
}

// before orders the heap: larger gain first, then lower index, which is
// Greedy's tie-breaker.
func (a step) before(b step) bool {
	return a.g > b.g || (a.g == b.g && a.j < b.j)
}

// greedyFill raises s[j] towards limit[j] one slot at a time, best positive
// marginal gain first (ties: lower index), until left slots are used. Since
// every job's candidates are taken in order, the result is the first
// `left` positive steps in the order (gain desc, index asc, slot asc) when
// gains are non-increasing per job.
func greedyFill(p *Problem, s, limit []int, left int) {
	if left <= 0 {
		return
	}
	h := make([]step, 0, len(s))
	for j := range s {
		if s[j] >= limit[j] {
			continue
		}
		cur, next := p.F(j, s[j]), p.F(j, s[j]+1)
		if g := diff(cur, next); g > 0 {
			h = append(h, step{g, next, j})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		siftDown(h, i)
	}
	for left > 0 && len(h) > 0 {
		top := &h[0]
		j := top.j
		s[j]++
		left--
		if s[j] < limit[j] {
			next := p.F(j, s[j]+1)
			if g := diff(top.next, next); g > 0 {
				top.g, top.next = g, next
				siftDown(h, 0)
				continue
			}
		}
		h[0] = h[len(h)-1]
		h = h[:len(h)-1]
		siftDown(h, 0)
	}
}

// diff is a - b with equal values (including two infinities) giving 0.
func diff(a, b float64) float64 {
	if a == b {
		return 0
	}
	return a - b
}

// siftDown restores the heap property below i.
func siftDown(h []step, i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && h[r].before(h[l]) {
			c = r
		}
		if !h[c].before(h[i]) {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}
