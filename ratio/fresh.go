package ratio

import (
	"fmt"
	"math"
)

// Eta is Theorem 3.3.1 of the dissertation: the number of slots released
// while job J_a finishes its remaining map work, when one task finishes every
// r seconds, each released slot turns into a map slot with probability
// thetaCur and the k jobs in the map phase share new map slots evenly.
// J_a starts with mA map slots and wA slot-seconds of map work left. Its
// slots grow linearly, so it finishes after x seconds where
//
//	x * (mA + x*thetaCur/(2*r*k)) = wA,
//
// and eta = x/r. The positive root, written as 2*wA/(mA + sqrt(mA^2 +
// 4*c*wA)) with c = thetaCur/(2*r*k), is the theorem's (sqrt(mA^2+4*c*wA) -
// mA)/(2*c) without its cancellation for small c. Eta is +Inf when J_a can
// never finish (no slots and none coming) and 0 when nothing is released
// (r infinite) or nothing is left.
func Eta(mA, wA, thetaCur, r float64, k int) float64 {
	if wA <= 0 || math.IsInf(r, 1) {
		return 0
	}
	if r <= 0 || k <= 0 {
		return math.Inf(1)
	}
	c := thetaCur / (2 * r * float64(k))
	den := mA + math.Sqrt(mA*mA+4*c*wA)
	if den <= 0 {
		return math.Inf(1)
	}
	return 2 * wA / den / r
}

// freshTheta is Algorithm 3.3.3 (CalExpSm) as a ratio: theta_cur =
// RW_m/(RW_m+RW_r); when J_a, the job with the least remaining map work,
// has passed tau1 of its map tasks, the look-ahead theta_exp replaces it if
// the ratio predicted with theta_cur differs from theta_exp by more than
// tau2 relative to theta_exp.
//
// Epoch reading of the algorithm (the dissertation runs it per released
// slot): every job with map work is in M, because an epoch scheduler admits
// all jobs and FLEX decides their shares, so k = |M| and there is no J_b
// waiting to join (w_m(b) = 0). Line 12 compares slots with a ratio; we
// compare the predicted map ratio s'_m/S with theta_exp, which is what the
// text describes ("compares the estimated ratio to the expected ratio").
// The reduce completion interval r of Theorem 3.3.1 is estimated from the
// running reduce tasks: 1/r = sum of running reduce tasks / mean reduce
// task time.
func freshTheta(c Config, S int, jobs []Job, redWork []float64, say func(string, ...any)) float64 {
	rwM, rwR := 0.0, 0.0
	for i, j := range jobs {
		rwM += j.Map.Work
		rwR += redWork[i]
	}
	if rwM+rwR <= 0 {
		return math.NaN()
	}
	thetaCur := rwM / (rwM + rwR)
	say("fresh: remaining work RW_m=%.6g, RW_r=%.6g slot-seconds; theta_cur=%.4f (Alg. 3.3.3 line 1)", rwM, rwR, thetaCur)
	a, k := -1, 0
	for i, j := range jobs {
		if j.Map.Work <= 0 {
			continue
		}
		k++
		if a < 0 || less(j.Map.Work, jobs[a].Map.Work, j, jobs[a]) {
			a = i
		}
	}
	if a < 0 {
		return thetaCur
	}
	ja := jobs[a]
	progress := 0.0
	if ja.Map.Tasks > 0 {
		progress = float64(ja.Map.Completed()) / float64(ja.Map.Tasks)
	}
	if progress < c.Tau1 {
		say("fresh: job %s is nearest the end of its map phase at progress %.3f < tau1 %.3g; keep theta_cur (line 3)", ja.ID, progress, c.Tau1)
		return thetaCur
	}
	rwM2 := math.Max(0, rwM-ja.Map.Work*float64(k))
	rwR2 := rwR
	if redWork[a] == 0 {
		rwR2 += ja.Reduce.Work
	}
	if rwM2+rwR2 <= 0 {
		return thetaCur
	}
	thetaExp := rwM2 / (rwM2 + rwR2)
	rate := 0.0
	for i, j := range jobs {
		if redWork[i] > 0 && j.Reduce.Running > 0 && j.Reduce.AvgTaskTime > 0 {
			rate += float64(j.Reduce.Running) / j.Reduce.AvgTaskTime
		}
	}
	eta := 0.0
	if rate > 0 {
		eta = Eta(float64(ja.Map.Running), ja.Map.Work, thetaCur, 1/rate, k)
	}
	sm := 0
	for _, j := range jobs {
		sm += j.Map.Running
	}
	predicted := (float64(sm) + thetaCur*eta) / float64(S)
	diff := math.Abs(predicted - thetaExp)
	rel := math.Inf(1)
	switch {
	case thetaExp > 0:
		rel = diff / thetaExp
	case diff == 0:
		rel = 0
	}
	say("fresh: job %s passed tau1 (progress %.3f); theta_exp=%.4f (lines 6-9), eta=%.4g slots released meanwhile (Theorem 3.3.1), predicted map ratio %.4f (line 11)",
		ja.ID, progress, thetaExp, eta, predicted)
	if rel > c.Tau2 {
		say("fresh: predicted ratio differs from theta_exp by %.3g > tau2 %.3g; use theta_exp (line 12)", rel, c.Tau2)
		return thetaExp
	}
	say("fresh: predicted ratio within tau2 %.3g of theta_exp (%.3g); keep theta_cur (line 13)", c.Tau2, rel)
	return thetaCur
}

// less orders two jobs by a key, then earlier submission, then id.
func less(ka, kb float64, a, b Job) bool {
	if ka != kb {
		return ka < kb
	}
	if a.Submitted != b.Submitted {
		return a.Submitted < b.Submitted
	}
	return a.ID < b.ID
}

// fresh splits S = map+reduce fungible slots by theta (Alg. 3.3.2: a freed
// slot becomes a map slot while expSm = theta*S exceeds the map slots). Two
// flexd additions: a phase with work keeps at least one slot when S >= 2,
// and slots a phase cannot use (budget above its demand) go to the other
// phase's unmet demand, so no slot idles while tasks wait
// (docs/algorithms.md section 1, "No slack left behind").
func fresh(c Config, cl Cluster, jobs []Job, redWork []float64, redDemand []int, why *[]string) (mapB, redB int, theta float64, b Borrowed) {
	say := func(f string, a ...any) { *why = append(*why, fmt.Sprintf(f, a...)) }
	S := cl.Total()
	theta = freshTheta(c, S, jobs, redWork, say)
	if math.IsNaN(theta) {
		say("fresh: no remaining work; keep the configured split")
		return cl.MapSlots, cl.ReduceSlots, 0, b
	}
	mapB = int(math.Floor(theta*float64(S) + 0.5))
	rwM, rwR := 0.0, 0.0
	dM, dR := 0, 0
	for i, j := range jobs {
		rwM += j.Map.Work
		rwR += redWork[i]
		dM += j.Map.Demand()
		dR += redDemand[i]
	}
	if S >= 2 && rwM > 0 && mapB == 0 {
		mapB = 1
	}
	if S >= 2 && rwR > 0 && mapB == S {
		mapB = S - 1
	}
	mapB = min(max(mapB, 0), S)
	redB = S - mapB
	say("fresh: theta=%.4f of %d slots gives map %d, reduce %d", theta, S, mapB, redB)
	if mapB > dM && redB < dR {
		mv := min(mapB-dM, dR-redB)
		mapB, redB = mapB-mv, redB+mv
		say("fresh: map demand is only %d; %d slots move to waiting reduce tasks", dM, mv)
	} else if redB > dR && mapB < dM {
		mv := min(redB-dR, dM-mapB)
		mapB, redB = mapB+mv, redB-mv
		say("fresh: reduce demand is only %d; %d slots move to waiting map tasks", dR, mv)
	}
	b = Borrowed{ReduceToMap: max(0, mapB-cl.MapSlots), MapToReduce: max(0, redB-cl.ReduceSlots)}
	return mapB, redB, theta, b
}

// Profile is one job of a batch for FRESH's static slot configuration
// (Alg. 3.3.1).
type Profile struct {
	// MapTasks and ReduceTasks are n_m(i) and n_r(i).
	MapTasks, ReduceTasks int
	// MapTime and ReduceTime are the mean task times t_m(i), t_r(i) in
	// seconds.
	MapTime, ReduceTime float64
}

// Point is one split on the makespan curve.
type Point struct {
	MapSlots int
	Makespan float64
}

// StaticPlan is the outcome of SlotConfig.
type StaticPlan struct {
	// MapSlots and ReduceSlots are the best split (ties: fewer map slots).
	MapSlots, ReduceSlots int
	// Makespan is the batch's predicted makespan in seconds under it.
	Makespan float64
	// Curve has the predicted makespan of every split s_m = 1..S-1.
	Curve []Point
}

// ValidationError lists every problem in a SlotConfig call.
type ValidationError struct {
	Problems []FieldError
}

// Error lists every problem on one line.
func (e *ValidationError) Error() string {
	s := "invalid slot configuration request"
	for i, p := range e.Problems {
		if i == 0 {
			s += ": "
		} else {
			s += "; "
		}
		s += p.Error()
	}
	return s
}

// SlotConfig is Algorithm 3.3.1 (FRESH static slot configuration): for
// every split s_m = 1..S-1 it simulates the batch in the dissertation's
// fluid model (at most k jobs in each phase, jobs enter the map phase in
// the given order, each phase's slots shared evenly by its running jobs, a
// job that finishes its map phase waits in R' while k jobs are in reduce)
// and returns the split with the least makespan and the whole curve.
//
// As printed, lines 13 and 14 deduct w_m(u), J_u's whole map workload,
// from the other jobs; the text ("update the remaining workloads") and the
// symmetric reduce case (line 20 deducts W_v) show the remaining workload
// W_u is meant, and that is what is deducted here. O(S * n^2).
func SlotConfig(profiles []Profile, slots, k int) (StaticPlan, error) {
	var ps problems
	if slots < 2 {
		ps.add("slots", "", "need at least 2 slots to split, got %d", slots)
	}
	if k < 1 {
		ps.add("k", "", "must be at least 1, got %d", k)
	}
	if len(profiles) == 0 {
		ps.add("profiles", "", "must not be empty")
	}
	for i, p := range profiles {
		at := fmt.Sprintf("profiles[%d]", i)
		if p.MapTasks < 0 {
			ps.add(at+".map_tasks", "", "must be >= 0, got %d", p.MapTasks)
		}
		if p.ReduceTasks < 0 {
			ps.add(at+".reduce_tasks", "", "must be >= 0, got %d", p.ReduceTasks)
		}
		if !finite(p.MapTime) || p.MapTime < 0 {
			ps.add(at+".map_time", "", "must be a non-negative number, got %v", p.MapTime)
		}
		if !finite(p.ReduceTime) || p.ReduceTime < 0 {
			ps.add(at+".reduce_time", "", "must be a non-negative number, got %v", p.ReduceTime)
		}
	}
	if len(ps) > 0 {
		return StaticPlan{}, &ValidationError{Problems: ps}
	}
	plan := StaticPlan{Makespan: math.Inf(1)}
	for sm := 1; sm < slots; sm++ {
		T := staticMakespan(profiles, sm, slots-sm, k)
		plan.Curve = append(plan.Curve, Point{MapSlots: sm, Makespan: T})
		if T < plan.Makespan {
			plan.Makespan, plan.MapSlots, plan.ReduceSlots = T, sm, slots-sm
		}
	}
	return plan, nil
}

// staticMakespan is the while loop of Algorithm 3.3.1 (lines 7-24) for one
// split.
func staticMakespan(profiles []Profile, sm, sr, k int) float64 {
	n := len(profiles)
	wm, wr, W := make([]float64, n), make([]float64, n), make([]float64, n)
	for i, p := range profiles {
		wm[i] = float64(p.MapTasks) * p.MapTime
		wr[i] = float64(p.ReduceTasks) * p.ReduceTime
		W[i] = wm[i]
	}
	var M, R, Rq []int
	next := 0
	for next < n && len(M) < k {
		M = append(M, next)
		next++
	}
	deduct := func(set []int, w float64) {
		for _, i := range set {
			W[i] = math.Max(0, W[i]-w)
		}
	}
	argmin := func(set []int) int {
		best := 0
		for x := 1; x < len(set); x++ {
			if W[set[x]] < W[set[best]] || (W[set[x]] == W[set[best]] && set[x] < set[best]) {
				best = x
			}
		}
		return best
	}
	T := 0.0
	for len(M)+len(R) > 0 {
		tu, tv := math.Inf(1), math.Inf(1)
		var xu, xv int
		var cm, cr float64
		if len(M) > 0 {
			xu = argmin(M)
			cm = float64(sm) / float64(len(M))
			tu = W[M[xu]] / cm
		}
		if len(R) > 0 {
			xv = argmin(R)
			cr = float64(sr) / float64(len(R))
			tv = W[R[xv]] / cr
		}
		if tu < tv {
			u := M[xu]
			M = append(M[:xu:xu], M[xu+1:]...)
			T += tu
			deduct(M, W[u])
			if len(R) > 0 {
				deduct(R, tu*cr)
			}
			W[u] = wr[u]
			if next < n {
				M = append(M, next)
				next++
			}
			if len(R) < k {
				R = append(R, u)
			} else {
				Rq = append(Rq, u)
			}
		} else {
			v := R[xv]
			R = append(R[:xv:xv], R[xv+1:]...)
			T += tv
			deduct(R, W[v])
			if len(M) > 0 {
				deduct(M, tv*cm)
			}
			W[v] = 0
			if len(Rq) > 0 {
				R = append(R, Rq[0])
				Rq = Rq[1:]
			}
		}
	}
	return T
}
