package solver

import (
	"fmt"
	"math"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver/mps"
)

// FIFO is the FIFO baseline of FLEX section 4: MPS over arrival order
// (submitted, then id) with every minimum taken as 0, so the oldest job
// takes all it can use and the next ones the rest.
type FIFO struct{}

var _ Solver = FIFO{}

// Name implements Solver.
func (FIFO) Name() string { return "fifo" }

// Solve implements Solver.
func (FIFO) Solve(p Problem) (Result, error) {
	in, err := newInstance(p)
	if err != nil {
		return Result{}, err
	}
	for k := range in.min {
		in.min[k] = 0
		in.normalized[k] = false
	}
	in.anyNormalized = false
	order := sortedBy(len(in.jobs), func(k int) float64 { return in.pj[k].Submitted })
	plan := mps.Pack(in.mpsInput(), order)
	res := in.result("fifo", "arrival", plan, order, true)
	res.Stats.Evaluations = 1
	return res, nil
}

// Optimal is OPT of FLEX section 4.1: the best MPS schedule over all J!
// priority orders, exact for J <= MaxOptimalJobs. It is for tests and the
// evaluation harness, never for production calls: 10! is 3.6 million
// schedules.
type Optimal struct{}

var _ Solver = Optimal{}

// Name implements Solver.
func (Optimal) Name() string { return "optimal" }

// Solve implements Solver.
func (Optimal) Solve(p Problem) (Result, error) {
	if err := checkOptimalSize(p); err != nil {
		return Result{}, err
	}
	in, err := newInstance(p)
	if err != nil {
		return Result{}, err
	}
	ev := newEvaluator(in)
	best := append([]int(nil), identity(len(in.jobs))...)
	bestScore := ev.score(best)
	canceled := false
	permute(len(in.jobs), func(order []int) bool {
		if s := ev.score(order); s.value < bestScore.value {
			bestScore = s
			copy(best, order)
		}
		// 10! orders take seconds: a caller that stopped waiting stops it.
		if ev.evaluations%cancelCheckEvery == 0 && isClosed(p.Options.Cancel) {
			canceled = true
			return false
		}
		return true
	})
	if canceled {
		return Result{}, fmt.Errorf("optimal after %d of %d orders: %w", ev.evaluations, factorial(len(in.jobs)), ErrCanceled)
	}
	plan := mps.Pack(in.mpsInput(), best)
	res := in.result("optimal", "exhaustive", plan, best, true)
	res.Stats.Evaluations = ev.evaluations + 1
	return res, nil
}

func checkOptimalSize(p Problem) error { return checkJobLimit("optimal", len(p.Jobs)) }

// Exhaustive returns, for each metric, the least objective any MPS order
// reaches on p (OPT of FLEX section 4.1), in one pass over the J! orders:
// the metrics override p.Metric and any per-job metrics. It is what the
// simulation study compares every policy with.
func Exhaustive(p Problem, metrics []penalty.Metric) ([]float64, error) {
	if err := checkOptimalSize(p); err != nil {
		return nil, err
	}
	ins := make([]*instance, len(metrics))
	for x, m := range metrics {
		in, err := newInstance(withMetric(p, m))
		if err != nil {
			return nil, fmt.Errorf("metric %s: %w", m, err)
		}
		ins[x] = in
	}
	if len(ins) == 0 {
		return nil, nil
	}
	in := ins[0]
	input := in.mpsInput()
	var packer mps.Packer
	packer.Bind(input)
	comp := make([]float64, len(in.jobs))
	best := make([]float64, len(metrics))
	for x := range best {
		best[x] = math.Inf(1)
	}
	eval := func(order []int) bool {
		packer.BoundCompletions(order, comp)
		for x, mi := range ins {
			if v := mi.cost(comp); v < best[x] {
				best[x] = v
			}
		}
		return true
	}
	eval(identity(len(in.jobs)))
	permute(len(in.jobs), eval)
	return best, nil
}

func identity(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// permute calls fn with every permutation of 0..n-1 but the identity, by
// Heap's algorithm (iterative), reusing one slice.
func permute(n int, fn func([]int) bool) {
	a := identity(n)
	c := make([]int, n)
	for i := 1; i < n; {
		if c[i] < i {
			if i%2 == 0 {
				a[0], a[i] = a[i], a[0]
			} else {
				a[c[i]], a[i] = a[i], a[c[i]]
			}
			if !fn(a) {
				return
			}
			c[i]++
			i = 1
		} else {
			c[i] = 0
			i++
		}
	}
}

// cancelCheckEvery is how many orders the exhaustive search scores between
// looks at Options.Cancel (a few milliseconds' worth).
const cancelCheckEvery = 4096

// isClosed reports whether c is closed (a nil channel never is).
func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func factorial(n int) int {
	f := 1
	for k := 2; k <= n; k++ {
		f *= k
	}
	return f
}

// withMetric is p with metric m for every job: the problem's metric set and
// the jobs' own metrics cleared (on a copy of the jobs).
func withMetric(p Problem, m penalty.Metric) Problem {
	q := p
	q.Metric = m
	q.Jobs = append([]Job(nil), p.Jobs...)
	for i := range q.Jobs {
		q.Jobs[i].Metric = ""
	}
	return q
}
