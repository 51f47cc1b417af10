package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// The fixed numbers of the FLEX section 4.1 workload. The paper leaves the
// total work and the task size open; docs/algorithms.md section 6 fixes them
// at the values that reproduce the paper's FAIR row.
const (
	// WorkPerSlot is the total work of an instance per slot, seconds: the
	// jobs' work is normalised to WorkPerSlot * S slot-seconds, so an
	// instance keeps a fully busy cluster for WorkPerSlot seconds.
	WorkPerSlot = 10.0
	// TaskWork is the work of one task, slot-seconds; a job's maximum is
	// its task count, min(S, ceil(work / TaskWork)).
	TaskWork = 0.3
	// LargeFactor is the ratio of the large jobs' mean work to the small
	// jobs' (the paper's "10 times larger").
	LargeFactor = 10.0
	// SLASteps is the number of SLA steps per job.
	SLASteps = 3
	// maxResample bounds the rejection sampling of a job's minimum; past it
	// the minimum falls back to the rounded mean, clamped to [1, max], so
	// generation always ends (it only happens when the mean is below 1 or
	// above the job's maximum).
	maxResample = 1000
)

// Workload is the shape of one FLEX section 4.1 instance. Unlike most
// configs, the zero values of Small and Slack are meaningful (no small
// jobs, no slack), so they are taken literally; start from DefaultWorkload.
type Workload struct {
	// Jobs is J, the number of jobs (>= 1).
	Jobs int
	// Slots is S, the number of slots (>= 1).
	Slots int
	// Small is the share of small jobs, in [0, 1]: round(Small * J) jobs
	// are small, the rest large, at random positions.
	Small float64
	// Slack is the share of the slots left to the policy beyond the
	// minima, in [0, 1]: the minima are drawn so that they sum, on average,
	// to (1 - Slack) * S. The paper's base case, 75% slack, leaves a quarter
	// of the cluster to the minima and three quarters to the policy.
	Slack float64
}

// DefaultWorkload is the paper's base case: 10 jobs, 100 slots, 80% small
// jobs, 75% slack.
func DefaultWorkload() Workload {
	return Workload{Jobs: 10, Slots: 100, Small: 0.8, Slack: 0.75}
}

// Validate reports the first out-of-range field, naming it.
func (w Workload) Validate() error {
	switch {
	case w.Jobs < 1:
		return fmt.Errorf("jobs = %d, want >= 1", w.Jobs)
	case w.Slots < 1:
		return fmt.Errorf("slots = %d, want >= 1", w.Slots)
	case !(w.Small >= 0 && w.Small <= 1):
		return fmt.Errorf("small = %v, want a share in [0, 1]", w.Small)
	case !(w.Slack >= 0 && w.Slack <= 1):
		return fmt.Errorf("slack = %v, want a share in [0, 1]", w.Slack)
	}
	return nil
}

// GenerateInstance returns instance number index of a study with the given
// seed: a phase problem of FLEX section 4.1 at time 0 with every job
// submitted at 0. Each instance draws from its own PCG stream (seed, index),
// so it does not depend on how many instances come before it or on which
// worker builds it. The problem's metric is avg_response_time; the study
// overrides it per metric. It panics if w is invalid (programmer misuse:
// callers validate first).
//
// The draws, in order:
//   - work: round(Small*J) small jobs and J - that many large ones, at
//     positions chosen by a random permutation (FIFO runs in id order, so
//     the positions of the large jobs are what makes FIFO good or bad);
//     small work ~ N(1, 1/3), large work ~ N(10, 10/3), each left-truncated
//     at 0 by resampling; then scaled so the works sum to WorkPerSlot * S;
//   - max = min(S, ceil(work / TaskWork));
//   - min ~ N(mu, mu/3) rounded to the nearest integer with mu = (1 -
//     Slack) * S / J, resampled until 1 <= min <= max (the paper insists on
//     a non-zero minimum per job and resamples minima above the maximum);
//   - weight ~ U[0, 1); deadline ~ U[0, WorkPerSlot); three SLA
//     pseudo-deadlines ~ U[0, WorkPerSlot) and three heights ~ U[0, 1),
//     each sorted ("simply reordered into monotone sequences").
//
// WorkPerSlot is total work / S, the horizon of a busy cluster.
func GenerateInstance(w Workload, seed uint64, index int) solver.Problem {
	if err := w.Validate(); err != nil {
		panic("sim.GenerateInstance: " + err.Error())
	}
	rng := rand.New(rand.NewPCG(seed, uint64(index)))
	n, S := w.Jobs, w.Slots
	work, _ := drawWork(rng, w)
	horizon := WorkPerSlot
	minMean := (1 - w.Slack) * float64(S) / float64(n)
	jobs := make([]solver.Job, n)
	width := len(fmt.Sprint(n - 1))
	for k := range jobs {
		wk := work[k]
		mx := min(S, int(math.Ceil(wk/TaskWork-1e-9)))
		mx = max(mx, 1)
		jobs[k] = solver.Job{
			ID:          fmt.Sprintf("j%0*d", width, k),
			Min:         drawMin(rng, minMean, mx),
			Max:         mx,
			Work:        wk,
			TotalWork:   wk,
			Weight:      rng.Float64(),
			Deadline:    rng.Float64() * horizon,
			HasDeadline: true,
			SLA:         drawSLA(rng, horizon),
		}
	}
	return solver.Problem{Slots: S, Now: 0, Metric: penalty.AvgResponseTime, Jobs: jobs}
}

// GenerateStudy returns cfg.Instances instances (see GenerateInstance).
func GenerateStudy(cfg StudyConfig, seed uint64) []solver.Problem {
	cfg = cfg.withDefaults()
	out := make([]solver.Problem, cfg.Instances)
	for i := range out {
		out[i] = GenerateInstance(cfg.Workload, seed, i)
	}
	return out
}

// drawWork draws the jobs' work, normalised to WorkPerSlot * S, and which
// jobs are large.
func drawWork(rng *rand.Rand, w Workload) (work []float64, large []bool) {
	n := w.Jobs
	nSmall := int(math.Round(w.Small * float64(n)))
	large = make([]bool, n)
	for x, pos := range rng.Perm(n) {
		large[pos] = x >= nSmall
	}
	work = make([]float64, n)
	total := 0.0
	for k := range work {
		mean := 1.0
		if large[k] {
			mean = LargeFactor
		}
		work[k] = truncNormal(rng, mean, mean/3)
		total += work[k]
	}
	scale := WorkPerSlot * float64(w.Slots) / total
	for k := range work {
		work[k] *= scale
	}
	return work, large
}

// truncNormal draws from N(mean, sd) left-truncated at 0 by resampling.
// With sd = mean/3 a draw is rejected with probability 0.13%.
func truncNormal(rng *rand.Rand, mean, sd float64) float64 {
	for {
		if x := mean + sd*rng.NormFloat64(); x > 0 {
			return x
		}
	}
}

// drawMin draws a job's minimum: N(mean, mean/3) rounded, resampled until it
// lies in [1, mx]; see maxResample for the fallback.
func drawMin(rng *rand.Rand, mean float64, mx int) int {
	for range maxResample {
		m := int(math.Round(mean + mean/3*rng.NormFloat64()))
		if m >= 1 && m <= mx {
			return m
		}
	}
	return min(max(int(math.Round(mean)), 1), mx)
}

// drawSLA draws SLASteps steps with pseudo-deadlines on [0, horizon) and
// heights on [0, 1), each sorted. Deadlines must be strictly increasing, so
// a (vanishingly unlikely) tie is redrawn.
func drawSLA(rng *rand.Rand, horizon float64) []penalty.Step {
	d := make([]float64, SLASteps)
	for {
		for x := range d {
			d[x] = rng.Float64() * horizon
		}
		slices.Sort(d)
		if len(slices.Compact(slices.Clone(d))) == len(d) {
			break
		}
	}
	h := make([]float64, SLASteps)
	for x := range h {
		h[x] = rng.Float64()
	}
	slices.Sort(h)
	steps := make([]penalty.Step, SLASteps)
	for x := range steps {
		steps[x] = penalty.Step{Deadline: d[x], Penalty: h[x]}
	}
	return steps
}
