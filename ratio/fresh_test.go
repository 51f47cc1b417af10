package ratio

import (
	"math"
	"testing"
)

// TestEtaTheorem331 checks Theorem 3.3.1 against a direct simulation of its
// assumptions: one slot is released every r seconds (as a fluid, rate 1/r),
// a fraction thetaCur of released slots become map slots, shared evenly by
// the k map-phase jobs, so J_a holds mA + thetaCur*t/(r*k) slots at time t;
// integrate its work until wA is done at time x; eta = x/r. A second run
// releases slots one at a time at t = r, 2r, ...; its eta differs from the
// fluid one by less than one release.
func TestEtaTheorem331(t *testing.T) {
	cases := map[string]struct {
		mA, wA, theta, r float64
		k                int
	}{
		"worked look-ahead example": {2, 20, 0.97, 20.0 / 3, 2},
		"no slots yet":              {0, 50, 0.5, 1, 1},
		"many jobs, fast releases":  {5, 100, 0.3, 0.5, 4},
		"all releases to reduce":    {4, 40, 0, 2, 3},
		"large remaining work":      {1, 5000, 0.8, 0.25, 10},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			got := Eta(c.mA, c.wA, c.theta, c.r, c.k)
			// Fluid integration with the midpoint rule, exact for linear
			// growth apart from the last partial step.
			const dt = 1e-4
			done, tt := 0.0, 0.0
			for done < c.wA {
				slots := c.mA + c.theta*(tt+dt/2)/(c.r*float64(c.k))
				if done+slots*dt >= c.wA {
					tt += (c.wA - done) / slots
					break
				}
				done += slots * dt
				tt += dt
			}
			fluid := tt / c.r
			if math.Abs(got-fluid) > 1e-3*math.Max(1, fluid) {
				t.Errorf("Eta = %.6f, fluid simulation %.6f", got, fluid)
			}
			// Discrete releases: J_a gains theta/k of a slot at each multiple
			// of r.
			done, tt = 0, 0
			slots := c.mA
			for {
				nextRelease := (math.Floor(tt/c.r+1e-12) + 1) * c.r
				if slots > 0 && done+slots*(nextRelease-tt) >= c.wA {
					tt += (c.wA - done) / slots
					break
				}
				done += slots * (nextRelease - tt)
				tt = nextRelease
				slots += c.theta / float64(c.k)
			}
			discrete := tt / c.r
			// Slots arrive later than in the fluid model, never more than
			// one release late, so J_a finishes later by less than one r.
			if discrete < got-1e-9 || discrete > got+1+1e-9 {
				t.Errorf("discrete releases give eta %.6f, theorem %.6f: not within one release", discrete, got)
			}
		})
	}
}

// TestFreshBudgets covers FRESH's split: theta_cur far from the end of a
// map phase, the look-ahead theta_exp when the nearest job passed tau1 and
// the predicted ratio is far off, theta_cur kept when it is close, and the
// work-conserving clamp.
func TestFreshBudgets(t *testing.T) {
	// Look-ahead fixture on 5+5 = 10 slots.
	//  a: map 8 of 10 tasks done (progress 0.8 = tau1), 2 running, 20
	//     slot-s left; reduce (not started) 5 tasks, work W.
	//  b: map 5 of 100 done, 5 running, 950 slot-s left; reduce 2 tasks.
	//  c: in its reduce phase, 3 reduce tasks running of 20 s each, 30
	//     slot-s left.
	// RW_m = 970, RW_r = 30 (only c is in R), theta_cur = 0.97, k = 2.
	// Line 7: RW'_m = 970 - 2*20 = 930. Line 8: RW'_r = 30 + W.
	// Reduce tasks end at 3/20 per s, r = 20/3 s; c = 0.97/(2*(20/3)*2) =
	// 0.036375; x = 2*20/(2+sqrt(4+4*0.036375*20)) = 8.6417 s; eta =
	// x/r = 1.2963; s'_m = 7 + 0.97*1.2963 = 8.2574; predicted 0.82574.
	lookahead := func(aReduceWork float64) []Job {
		return []Job{
			{ID: "a", Map: PhaseDemand{Tasks: 10, Running: 2, Work: 20, AvgTaskTime: 10},
				Reduce: PhaseDemand{Tasks: 5, Pending: 5, Work: aReduceWork, AvgTaskTime: 100}},
			{ID: "b", Map: PhaseDemand{Tasks: 100, Pending: 90, Running: 5, Work: 950, AvgTaskTime: 10},
				Reduce: PhaseDemand{Tasks: 2, Pending: 2, Work: 200, AvgTaskTime: 100}},
			{ID: "c", Map: PhaseDemand{Tasks: 4}, ReduceStarted: true,
				Reduce: PhaseDemand{Tasks: 3, Running: 3, Work: 30, AvgTaskTime: 20}},
		}
	}
	cases := map[string]struct {
		cl                Cluster
		jobs              []Job
		theta             float64
		wantMap, wantRed  int
		wantTheta         float64
		wantBorrowed      Borrowed
		wantDecisionWords string
	}{
		// RW_m = 300, RW_r = 100 -> theta 0.75 of 8 slots = 6 map, 2
		// reduce. j1's progress 10/20 = 0.5 < tau1.
		"theta_cur before tau1": {
			cl: Cluster{MapSlots: 4, ReduceSlots: 4},
			jobs: []Job{
				{ID: "j1", Map: PhaseDemand{Tasks: 20, Pending: 10, Work: 300}},
				{ID: "j2", Map: PhaseDemand{Tasks: 1}, Reduce: PhaseDemand{Tasks: 10, Pending: 10, Work: 100}, ReduceStarted: true},
			},
			wantMap: 6, wantRed: 2, wantTheta: 0.75, wantBorrowed: Borrowed{ReduceToMap: 2},
			wantDecisionWords: "line 3",
		},
		// As above but only 3 map tasks are left to run: 3 of the 6 map
		// slots go to the 10 waiting reduce tasks.
		"work-conserving clamp": {
			cl: Cluster{MapSlots: 4, ReduceSlots: 4},
			jobs: []Job{
				{ID: "j1", Map: PhaseDemand{Tasks: 20, Pending: 3, Work: 300}},
				{ID: "j2", Map: PhaseDemand{Tasks: 1}, Reduce: PhaseDemand{Tasks: 10, Pending: 10, Work: 100}, ReduceStarted: true},
			},
			wantMap: 3, wantRed: 5, wantTheta: 0.75, wantBorrowed: Borrowed{MapToReduce: 1},
			wantDecisionWords: "move to waiting reduce",
		},
		// W = 5000: theta_exp = 930/5960 = 0.15604; |0.82574-0.15604| /
		// 0.15604 = 4.29 > tau2 -> theta_exp; round(1.5604) = 2 map slots.
		"look-ahead switches to theta_exp": {
			cl: Cluster{MapSlots: 5, ReduceSlots: 5}, jobs: lookahead(5000),
			wantMap: 2, wantRed: 8, wantTheta: 930.0 / 5960, wantBorrowed: Borrowed{MapToReduce: 3},
			wantDecisionWords: "use theta_exp",
		},
		// W = 500: theta_exp = 930/1460 = 0.63699; relative difference
		// 0.2963 <= tau2 -> keep theta_cur 0.97; round(9.7) = 10 would leave
		// reduce work without a slot, so map 9, reduce 1.
		"look-ahead keeps theta_cur": {
			cl: Cluster{MapSlots: 5, ReduceSlots: 5}, jobs: lookahead(500),
			wantMap: 9, wantRed: 1, wantTheta: 0.97, wantBorrowed: Borrowed{ReduceToMap: 4},
			wantDecisionWords: "keep theta_cur (line 13)",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			res, _ := Budgets(Config{Mode: ModeFresh}, Input{Cluster: c.cl, Jobs: c.jobs}, State{})
			if res.Map != c.wantMap || res.Reduce != c.wantRed || res.Borrowed != c.wantBorrowed {
				t.Errorf("map %d reduce %d borrowed %+v, want %d %d %+v\n%s",
					res.Map, res.Reduce, res.Borrowed, c.wantMap, c.wantRed, c.wantBorrowed, res)
			}
			if math.Abs(res.Theta-c.wantTheta) > 1e-9 {
				t.Errorf("theta %.6f, want %.6f\n%s", res.Theta, c.wantTheta, res)
			}
			if !containsWord(res.Why, c.wantDecisionWords) {
				t.Errorf("explanation lacks %q:\n%s", c.wantDecisionWords, res)
			}
		})
	}
}

// stepMakespan is an independent time-stepped simulation of Algorithm
// 3.3.1's model: at most k jobs in each phase, jobs admitted to the map
// phase in order, a phase's slots shared evenly by its running jobs, jobs
// done with their map phase queue FIFO for the reduce phase. It advances in
// steps of dt and processes completions at the end of each step.
func stepMakespan(profiles []Profile, sm, sr, k int, dt float64) float64 {
	n := len(profiles)
	rem := make([]float64, n)
	phase := make([]int, n) // 0 waiting, 1 map, 2 queued for reduce, 3 reduce, 4 done
	var mapQ, redQ []int
	next := 0
	admit := func() {
		for next < n && len(mapQ) < k {
			phase[next] = 1
			rem[next] = float64(profiles[next].MapTasks) * profiles[next].MapTime
			mapQ = append(mapQ, next)
			next++
		}
	}
	var waitQ []int
	promote := func() {
		for len(waitQ) > 0 && len(redQ) < k {
			i := waitQ[0]
			waitQ = waitQ[1:]
			phase[i] = 3
			rem[i] = float64(profiles[i].ReduceTasks) * profiles[i].ReduceTime
			redQ = append(redQ, i)
		}
	}
	admit()
	t := 0.0
	for {
		// Zero-work phases end at once.
		changed := true
		for changed {
			changed = false
			for x := 0; x < len(mapQ); x++ {
				if i := mapQ[x]; rem[i] <= 1e-12 {
					mapQ = append(mapQ[:x], mapQ[x+1:]...)
					phase[i] = 2
					waitQ = append(waitQ, i)
					changed = true
					x--
				}
			}
			admit()
			promote()
			for x := 0; x < len(redQ); x++ {
				if i := redQ[x]; rem[i] <= 1e-12 {
					redQ = append(redQ[:x], redQ[x+1:]...)
					phase[i] = 4
					changed = true
					x--
				}
			}
			promote()
		}
		if len(mapQ)+len(redQ)+len(waitQ) == 0 && next == n {
			return t
		}
		cm := float64(sm) / float64(max(len(mapQ), 1))
		cr := float64(sr) / float64(max(len(redQ), 1))
		for _, i := range mapQ {
			rem[i] -= cm * dt
		}
		for _, i := range redQ {
			rem[i] -= cr * dt
		}
		t += dt
	}
}

// TestSlotConfigMatchesSimulation checks Algorithm 3.3.1's makespan for
// every split against the time-stepped simulation of the same model, on
// small batches; and the one-job case against the closed form.
func TestSlotConfigMatchesSimulation(t *testing.T) {
	batches := map[string]struct {
		profiles []Profile
		slots, k int
	}{
		"two jobs, k=1":                   {[]Profile{{4, 2, 1, 2}, {2, 3, 2, 1}}, 5, 1},
		"three jobs, k=1 (R' queue used)": {[]Profile{{3, 1, 1, 3}, {6, 2, 1, 1}, {2, 4, 2, 1}}, 6, 1},
		"three jobs, k=3":                 {[]Profile{{3, 1, 1, 3}, {6, 2, 1, 1}, {2, 4, 2, 1}}, 6, 3},
		"four jobs, k=2":                  {[]Profile{{5, 2, 1, 1}, {1, 5, 1, 1}, {4, 4, 0.5, 0.5}, {2, 1, 3, 2}}, 7, 2},
		"map-only job":                    {[]Profile{{4, 0, 1, 0}, {2, 2, 1, 1}}, 4, 2},
	}
	const dt = 1e-4
	for name, c := range batches {
		t.Run(name, func(t *testing.T) {
			plan, err := SlotConfig(c.profiles, c.slots, c.k)
			if err != nil {
				t.Fatal(err)
			}
			if len(plan.Curve) != c.slots-1 {
				t.Fatalf("curve has %d points, want %d", len(plan.Curve), c.slots-1)
			}
			best := math.Inf(1)
			for _, p := range plan.Curve {
				sim := stepMakespan(c.profiles, p.MapSlots, c.slots-p.MapSlots, c.k, dt)
				// Each phase change can be late by one step.
				if tolerance := float64(2*len(c.profiles)+1) * dt * 10; math.Abs(sim-p.Makespan) > tolerance {
					t.Errorf("s_m=%d: algorithm %.5f, simulation %.5f", p.MapSlots, p.Makespan, sim)
				}
				best = math.Min(best, p.Makespan)
			}
			if plan.Makespan != best || plan.MapSlots+plan.ReduceSlots != c.slots {
				t.Errorf("plan %+v is not the curve's minimum %.5f", plan, best)
			}
		})
	}
	// One job, k = 1: makespan(s_m) = w_m/s_m + w_r/(S-s_m). With w_m =
	// w_r = 4 on S = 4: 4+4/3, 2+2, 4/3+4 -> best s_m = 2, makespan 4.
	plan, err := SlotConfig([]Profile{{MapTasks: 4, ReduceTasks: 2, MapTime: 1, ReduceTime: 2}}, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := []Point{{1, 4 + 4.0/3}, {2, 4}, {3, 4.0/3 + 4}}
	for i, p := range plan.Curve {
		if p.MapSlots != want[i].MapSlots || math.Abs(p.Makespan-want[i].Makespan) > 1e-12 {
			t.Errorf("curve[%d] = %+v, want %+v", i, p, want[i])
		}
	}
	if plan.MapSlots != 2 || plan.Makespan != 4 {
		t.Errorf("best = %d slots, %.4f; want 2, 4", plan.MapSlots, plan.Makespan)
	}
}

// TestSlotConfigRejects checks every bad SlotConfig argument is named.
func TestSlotConfigRejects(t *testing.T) {
	cases := map[string]struct {
		profiles []Profile
		slots, k int
		field    string
	}{
		"one slot":          {[]Profile{{1, 1, 1, 1}}, 1, 1, "slots"},
		"k zero":            {[]Profile{{1, 1, 1, 1}}, 4, 0, "k"},
		"no profiles":       {nil, 4, 1, "profiles"},
		"negative tasks":    {[]Profile{{-1, 1, 1, 1}}, 4, 1, "profiles[0].map_tasks"},
		"negative reduces":  {[]Profile{{1, -1, 1, 1}}, 4, 1, "profiles[0].reduce_tasks"},
		"NaN map time":      {[]Profile{{1, 1, math.NaN(), 1}}, 4, 1, "profiles[0].map_time"},
		"negative red time": {[]Profile{{1, 1, 1, -2}}, 4, 1, "profiles[0].reduce_time"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := SlotConfig(c.profiles, c.slots, c.k)
			ve, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("error %v, want *ValidationError", err)
			}
			found := false
			for _, p := range ve.Problems {
				found = found || p.Field == c.field
			}
			if !found {
				t.Errorf("problems %v do not name %q", ve.Problems, c.field)
			}
		})
	}
}
