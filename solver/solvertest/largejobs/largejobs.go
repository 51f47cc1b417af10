// Package largejobs draws the jobs of solvertest.Large, the FLEX section
// 4.1-like instance the benchmarks use at any size, without the solver's
// types: solver/fairshare's tests and benchmarks draw the same jobs and
// cannot import package solver, which imports them.
package largejobs

import (
	"math"
	"math/rand/v2"
	"sort"

	"github.com/flexd/flexd/penalty"
)

// Job is one drawn job.
type Job struct {
	// Min and Max are its minimum (summing to about a quarter of the
	// slots) and maximum slots (its task count at 0.3 slot-seconds a task,
	// capped by the slots).
	Min, Max int
	// Work is its work in slot-seconds, Weight uniform on [0, 1), Deadline
	// uniform on [0, 10).
	Work, Weight, Deadline float64
	// SLA is three steps with deadlines and penalties uniform on [0, 10)
	// and [0, 1), both ascending.
	SLA []penalty.Step
}

// Draw draws n jobs for slots slots from rng: 80% small and 20% large
// (a 1:10 work ratio), total work 10 * slots slot-seconds. The draws come
// in the order solvertest.Large has always made them, so seeded instances
// stay what they were.
func Draw(rng *rand.Rand, n, slots int) []Job {
	raw := make([]float64, n)
	sum := 0.0
	for i := range raw {
		raw[i] = 1 + rng.Float64()
		if rng.Float64() >= 0.8 {
			raw[i] *= 10
		}
		sum += raw[i]
	}
	const horizon = 10.0
	jobs := make([]Job, n)
	for i := range raw {
		work := raw[i] / sum * 10 * float64(slots)
		ds := []float64{rng.Float64() * horizon, rng.Float64() * horizon, rng.Float64() * horizon}
		ps := []float64{rng.Float64(), rng.Float64(), rng.Float64()}
		sort.Float64s(ds)
		sort.Float64s(ps)
		j := Job{
			Min:      rng.IntN(max(1, slots/(2*n)) + 1),
			Max:      max(1, min(slots, int(math.Ceil(work/0.3)))),
			Work:     work,
			Weight:   rng.Float64(),
			Deadline: rng.Float64() * horizon,
		}
		for k := range ds {
			j.SLA = append(j.SLA, penalty.Step{Deadline: ds[k] + float64(k)*1e-9, Penalty: ps[k]})
		}
		jobs[i] = j
	}
	return jobs
}
