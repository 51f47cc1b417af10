package ratio

// Jain is Jain's fairness index (Σx)² / (n Σx²), which FRESH uses for its
// overall fairness (dissertation 3.3.2.1, after Eq. 3.1). It lies in [1/n,
// 1] for non-negative x, 1 meaning perfectly equal. An empty or all-zero
// vector is perfectly fair (1): nobody got more than anybody else.
func Jain(x []float64) float64 {
	if len(x) == 0 {
		return 1
	}
	sum, sq := 0.0, 0.0
	for _, v := range x {
		sum += v
		sq += v * v
	}
	if sq == 0 {
		return 1
	}
	return sum * sum / (float64(len(x)) * sq)
}

// Usage is one active job's consumption for FRESH's overall fairness.
type Usage struct {
	// ID identifies the job.
	ID string
	// Start is T_i, when the job started, in seconds.
	Start float64
	// SlotSeconds is sum_j t_m[i,j] + sum_j t_r[i,j]: the execution time of
	// all the job's finished and running map and reduce tasks up to now
	// (Alg. 3.3.4 lines 6-10), in slot-seconds.
	SlotSeconds float64
}

// TaskSpan is one task attempt's execution interval, for SlotSeconds.
type TaskSpan struct {
	// Start is when the task started, in seconds.
	Start float64
	// End is when it finished; ignored while Running.
	End float64
	// Running says the task has not finished.
	Running bool
}

// SlotSeconds sums task execution times as Alg. 3.3.4 lines 6-10 do: f_j -
// s_j for a finished task, now - s_j for a running one.
func SlotSeconds(tasks []TaskSpan, now float64) float64 {
	total := 0.0
	for _, t := range tasks {
		end := t.End
		if t.Running {
			end = now
		}
		if end > t.Start {
			total += end - t.Start
		}
	}
	return total
}

// OverallFairness is FRESH's overall fairness F(T) at time now: r_i(T) =
// SlotSeconds_i / (T - T_i) (Eq. 3.1), the average number of slots job i
// has held since it started, and F(T) = Jain(r). Jobs that have not started
// yet (now <= Start) are not active and are left out; r is returned in the
// order of the jobs kept.
func OverallFairness(jobs []Usage, now float64) (index float64, r []float64) {
	for _, u := range jobs {
		if now > u.Start {
			r = append(r, u.SlotSeconds/(now-u.Start))
		}
	}
	return Jain(r), r
}
