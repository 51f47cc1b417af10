package epoch

import (
	"math"

	"github.com/flexd/flexd/estimate"
)

// Estimate is the request's estimate object (docs/api.md): how each
// phase's remaining work is obtained. The zero value is today's
// behaviour: the shim gives the work.
type Estimate struct {
	// Work is "given" (or empty), "extrapolate" or "extrapolate_elapsed".
	Work string
	// DefaultTaskTime is the last prior, seconds (> 0); nil means
	// estimate.DefaultTaskTime.
	DefaultTaskTime *float64
	// MinOne is "no_sample" (or empty), "always", "never" or "runnable".
	MinOne string
}

// config converts e to package estimate's configuration; ok is false for
// an unknown mode or min_one (Validate reports those).
func (e Estimate) config() (cfg estimate.Config, ok bool) {
	cfg.DefaultTaskTime = valueOr(e.DefaultTaskTime, estimate.DefaultTaskTime)
	switch e.Work {
	case "", estimate.GivenName:
		cfg.Mode = estimate.Given
	case string(estimate.Extrapolate), string(estimate.ExtrapolateElapsed):
		cfg.Mode = estimate.Mode(e.Work)
	default:
		return cfg, false
	}
	switch m := estimate.MinOne(e.MinOne); m {
	case "":
		cfg.MinOne = estimate.NoSample
	case estimate.NoSample, estimate.Always, estimate.Never, estimate.Runnable:
		cfg.MinOne = m
	default:
		return cfg, false
	}
	return cfg, true
}

// validateEstimate checks the estimate object's fields.
func (v *validator) validateEstimate(e Estimate) {
	switch e.Work {
	case "", estimate.GivenName, string(estimate.Extrapolate), string(estimate.ExtrapolateElapsed):
	default:
		v.add(-1, "estimate.work", "", "unknown mode %q; one of given, extrapolate, extrapolate_elapsed", e.Work)
	}
	switch estimate.MinOne(e.MinOne) {
	case "", estimate.NoSample, estimate.Always, estimate.Never, estimate.Runnable:
	default:
		v.add(-1, "estimate.min_one", "", "unknown policy %q; one of no_sample, always, never, runnable", e.MinOne)
	}
	if d := e.DefaultTaskTime; d != nil && (!finite(*d) || *d <= 0) {
		v.add(-1, "estimate.default_task_time", "", "must be a finite number > 0 (seconds), got %v", *d)
	}
}

// JobEstimate reports the estimated phases of one job (wire: estimates[]).
type JobEstimate struct {
	ID          string
	Map, Reduce *estimate.Work
}

// withEstimates returns req with every phase that has no work but has
// tasks left given its estimated work, total work (when absent) and, by
// min_one, a minimum of at least one slot; and the estimates, one per job
// with an estimated phase, in request order (FLEX 4.2; docs/algorithms.md
// section 8). Phases with work keep it: given work wins. req itself is not
// changed: the jobs and phases that change are copies. With the given mode
// (or an invalid estimate object) it returns req unchanged and no
// estimates.
func withEstimates(req Request) (Request, []JobEstimate) {
	cfg, ok := req.Estimate.config()
	if !ok || cfg.Mode == estimate.Given {
		return req, nil
	}
	var mapStats, reduceStats []estimate.PhaseStats
	for _, j := range req.Jobs {
		if j.Map != nil {
			mapStats = append(mapStats, statsOf(j.Map))
		}
		if j.Reduce != nil {
			reduceStats = append(reduceStats, statsOf(j.Reduce))
		}
	}
	priors := [2]estimate.Prior{{Default: cfg.DefaultTaskTime}, {Default: cfg.DefaultTaskTime}}
	priors[0].Cluster, priors[0].HasCluster = estimate.ClusterPrior(mapStats)
	priors[1].Cluster, priors[1].HasCluster = estimate.ClusterPrior(reduceStats)

	var ests []JobEstimate
	var jobs []Job
	for i, j := range req.Jobs {
		var je JobEstimate
		phases := [2]**Phase{&j.Map, &j.Reduce}
		outs := [2]**estimate.Work{&je.Map, &je.Reduce}
		for x, pp := range phases {
			p := *pp
			if p == nil || p.Work > 0 {
				continue
			}
			st := statsOf(p)
			st.Blocked = x == 1 && mapsLeft(j.Map)
			w, ok := estimate.ExtrapolateWork(st, priors[x], cfg.Mode, cfg.MinOne)
			if !ok || !(w.Work > 0) || math.IsInf(w.Work, 0) {
				continue // nothing left, or nothing a schedule can use
			}
			q := *p
			q.Work = w.Work
			if q.TotalWork == 0 {
				q.TotalWork = w.TotalWork
			}
			if w.MinRaised {
				q.Min = max(q.Min, 1)
			}
			*pp = &q
			*outs[x] = &w
		}
		if je.Map == nil && je.Reduce == nil {
			continue
		}
		if jobs == nil {
			jobs = append([]Job(nil), req.Jobs...)
		}
		je.ID = j.ID
		jobs[i] = j
		ests = append(ests, je)
	}
	if jobs != nil {
		req.Jobs = jobs
	}
	return req, ests
}

// mapsLeft reports whether a job's map phase m still has tasks or work
// left, so that none of its reduce tasks can complete yet.
func mapsLeft(m *Phase) bool {
	return m != nil && (m.Pending+m.Running > 0 || m.Work > 0)
}

func statsOf(p *Phase) estimate.PhaseStats {
	return estimate.PhaseStats{Tasks: p.Tasks, Pending: p.Pending, Running: p.Running,
		AvgTaskTime: p.AvgTaskTime, RunningElapsed: p.RunningElapsed}
}
