package estimate

import "math"

// yarn_default is YARN's DefaultSpeculator as the ESPLASH dissertation
// states it (section 5.1.1, Eq. 5.1-5.2; "LATE" there): a running task's
// estimated end, EstEnd = elapsed / progress + start, against a new
// attempt's, EstRepEnd = now + the mean time of the type's finished tasks;
// a task whose EstEnd is later is expected to benefit, and per (job,
// phase) the one with the largest benefit is submitted each scan. A type
// needs max(1, 5% of its tasks) finished first (YARN StartEndTimesBase:
// MINIMUM_COMPLETE_NUMBER_TO_SPECULATE and
// MINIMUM_COMPLETE_PROPORTION_TO_SPECULATE). A task with progress 0 has no
// estimate and is left alone, as YARN does.
func yarnCandidates(in AdviceInput, adv *Advice) []candidate {
	jobs := jobIndex(in)
	skip := backedUp(in)
	var out []candidate
	for _, a := range in.Tasks {
		if a.Speculative || a.Waiting || a.Progress == nil || skip[a.Task] {
			continue
		}
		pc := counts(jobs, a.Job, a.Phase)
		if pc == nil || !(pc.AvgTaskTime > 0) {
			continue
		}
		done := pc.Tasks - pc.Pending - pc.Running
		if done < max(1, int(math.Ceil(0.05*float64(pc.Tasks)))) {
			continue
		}
		p := *a.Progress
		if !(p > 0) || !(in.Now > a.Start) {
			continue
		}
		estEnd := (in.Now-a.Start)/p + a.Start
		benefit := estEnd - (pc.AvgTaskTime + in.Now)
		if benefit > 0 {
			out = append(out, candidate{a: a, reason: ReasonYARNBenefit, rank: benefit,
				tte: finitePtr(estEnd - in.Now), onePerJob: true})
		}
	}
	return out
}
