package solver_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/solvertest"
)

func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name    string
		traits  solvertest.Traits
		maxJobs int
	}{
		{"flex", solvertest.Traits{HonorsMinima: true, NoSlack: true}, 12},
		{"fair", solvertest.Traits{HonorsMinima: true, NoSlack: true}, 12},
		{"fifo", solvertest.Traits{HonorsMinima: false, NoSlack: true}, 12},
		{"optimal", solvertest.Traits{HonorsMinima: true, NoSlack: true}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, ok := solver.ByName(tc.name)
			if !ok {
				t.Fatalf("policy %q not registered", tc.name)
			}
			if s.Name() != tc.name {
				t.Fatalf("ByName(%q).Name() = %q", tc.name, s.Name())
			}
			solvertest.Run(t, s, tc.traits, tc.maxJobs)
		})
	}
}

// On small random instances FLEX returns an MPS schedule, so it can never
// beat the best MPS order, and it must reach it often; and OPT is the
// minimum over every order FLEX considers.
func TestFlexAgainstExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for _, info := range penalty.All() {
		hits, trials := 0, 40
		for trial := 0; trial < trials; trial++ {
			p := solvertest.Random(rng, 2+rng.IntN(5), info.Name)
			f, err := solver.Flex{}.Solve(p)
			if err != nil {
				t.Fatal(err)
			}
			o, err := solver.Optimal{}.Solve(p)
			if err != nil {
				t.Fatal(err)
			}
			best, err := solver.Exhaustive(p, []penalty.Metric{info.Name})
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(best[0]-o.Value) > 1e-9*math.Max(1, math.Abs(o.Value)) {
				t.Errorf("%s trial %d: Exhaustive %v != Optimal %v", info.Name, trial, best[0], o.Value)
			}
			tol := 1e-9 * math.Max(1, math.Abs(o.Value))
			if f.Value < o.Value-tol {
				t.Errorf("%s trial %d: flex %v beats the best MPS order %v", info.Name, trial, f.Value, o.Value)
			}
			if f.Value <= o.Value+tol {
				hits++
			}
		}
		// Local search from the best candidate finds the optimum on nearly
		// every small instance; a drop below 90% is a regression.
		if hits < trials*9/10 {
			t.Errorf("%s: flex reached the optimum on %d of %d instances", info.Name, hits, trials)
		}
	}
}

func TestValidationErrors(t *testing.T) {
	good := func() solver.Problem {
		return solver.Problem{Slots: 10, Metric: penalty.AvgResponseTime, Jobs: []solver.Job{
			{ID: "a", Min: 1, Max: 5, Work: 10, Weight: 1},
			{ID: "b", Min: 1, Max: 5, Work: 20, Weight: 1},
		}}
	}
	for name, tc := range map[string]struct {
		mutate func(p *solver.Problem)
		policy string
		field  string
		jobID  string
	}{
		"empty job list":       {func(p *solver.Problem) { p.Jobs = nil }, "flex", "jobs", ""},
		"no slots":             {func(p *solver.Problem) { p.Slots = 0 }, "flex", "slots", ""},
		"NaN work":             {func(p *solver.Problem) { p.Jobs[1].Work = math.NaN() }, "flex", "jobs[1].work", "b"},
		"infinite work":        {func(p *solver.Problem) { p.Jobs[0].Work = math.Inf(1) }, "fair", "jobs[0].work", "a"},
		"zero work":            {func(p *solver.Problem) { p.Jobs[0].Work = 0 }, "fifo", "jobs[0].work", "a"},
		"negative work":        {func(p *solver.Problem) { p.Jobs[0].Work = -3 }, "flex", "jobs[0].work", "a"},
		"duplicate ids":        {func(p *solver.Problem) { p.Jobs[1].ID = "a" }, "flex", "jobs[1].id", "a"},
		"empty id":             {func(p *solver.Problem) { p.Jobs[1].ID = "" }, "flex", "jobs[1].id", ""},
		"max below one":        {func(p *solver.Problem) { p.Jobs[0].Max = 0 }, "flex", "jobs[0].max", "a"},
		"negative weight":      {func(p *solver.Problem) { p.Jobs[1].Weight = -1 }, "flex", "jobs[1].weight", "b"},
		"unknown metric":       {func(p *solver.Problem) { p.Metric = "speed" }, "flex", "objective", ""},
		"deadline missing":     {func(p *solver.Problem) { p.Metric = penalty.TardyJobs }, "flex", "jobs[0].deadline", "a"},
		"sla missing":          {func(p *solver.Problem) { p.Metric = penalty.SLACost }, "flex", "jobs[0].sla", "a"},
		"mixed aggregates":     {func(p *solver.Problem) { p.Jobs[1].Metric = penalty.Makespan }, "flex", "jobs[1].objective", "b"},
		"optimal above ten":    {func(p *solver.Problem) { p.Jobs = manyJobs(11) }, "optimal", "jobs", ""},
		"fair above its limit": {func(p *solver.Problem) { p.Jobs = manyJobs(solver.MaxFairJobs + 1) }, "fair", "jobs", ""},
		"too many jobs":        {func(p *solver.Problem) { p.Jobs = manyJobs(solver.MaxJobs + 1) }, "flex", "jobs", ""},
		"SLA out of order": {func(p *solver.Problem) {
			p.Metric = penalty.SLACost
			for i := range p.Jobs {
				p.Jobs[i].SLA = []penalty.Step{{Deadline: 5, Penalty: 1}, {Deadline: 9, Penalty: 2}}
			}
			p.Jobs[1].SLA[1].Deadline = 4
		}, "flex", "jobs[1].sla[1].deadline", "b"},
		"SLA penalty falls": {func(p *solver.Problem) {
			p.Metric = penalty.SLACost
			for i := range p.Jobs {
				p.Jobs[i].SLA = []penalty.Step{{Deadline: 5, Penalty: 3}, {Deadline: 9, Penalty: 2}}
			}
		}, "flex", "jobs[0].sla[1].penalty", "a"},
	} {
		t.Run(name, func(t *testing.T) {
			p := good()
			tc.mutate(&p)
			s, _ := solver.ByName(tc.policy)
			_, err := s.Solve(p)
			var ve *solver.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("got error %v, want a *solver.ValidationError", err)
			}
			for _, fe := range ve.Problems {
				if fe.Field == tc.field && fe.JobID == tc.jobID {
					return
				}
			}
			t.Errorf("no problem with field %q and job %q in %v", tc.field, tc.jobID, err)
		})
	}
}

func manyJobs(n int) []solver.Job {
	jobs := make([]solver.Job, n)
	for i := range jobs {
		jobs[i] = solver.Job{ID: "j" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + itoa(i), Max: 1, Work: 1, Weight: 1}
	}
	return jobs
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	var b []byte
	for ; i > 0; i /= 10 {
		b = append([]byte{byte('0' + i%10)}, b...)
	}
	return string(b)
}

// Minima above the slots are scaled by S / sum(min), rounded down, and the
// rest handed out by largest remainder (docs/algorithms.md section 1):
// minima 5, 3, 2 on 4 slots scale to 2.0, 1.2, 0.8, floors 2, 1, 0, and the
// one slot left goes to the largest remainder, 0.8.
func TestMinimaNormalisation(t *testing.T) {
	p := solver.Problem{Slots: 4, Jobs: []solver.Job{
		{ID: "a", Min: 5, Max: 9, Work: 100, Weight: 1},
		{ID: "b", Min: 3, Max: 9, Work: 100, Weight: 1},
		{ID: "c", Min: 2, Max: 9, Work: 100, Weight: 1},
	}}
	r, err := solver.Flex{}.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	if !r.NormalizedMinima {
		t.Error("NormalizedMinima = false, want true")
	}
	want := map[string]solver.Allocation{
		"a": {ID: "a", Slots: 2, Reason: solver.ReasonNormalized},
		"b": {ID: "b", Slots: 1, Reason: solver.ReasonNormalized},
		"c": {ID: "c", Slots: 1, Reason: solver.ReasonNormalized},
	}
	for _, a := range r.Allocations {
		if want[a.ID] != a {
			t.Errorf("job %s: got %+v, want %+v", a.ID, a, want[a.ID])
		}
	}
}

// Reasons name why each job holds its slots: with 10 slots, job "short"
// (work 10, max 6) first by SRPT takes its max, "mid" takes the partial
// rest, "long" stays at its min, and "capped" sits at its demand.
func TestReasons(t *testing.T) {
	p := solver.Problem{Slots: 10, Jobs: []solver.Job{
		{ID: "long", Min: 1, Max: 10, Work: 1000, Weight: 1},
		{ID: "short", Min: 1, Max: 6, Work: 10, Weight: 1},
		{ID: "mid", Min: 0, Max: 10, Work: 100, Weight: 1},
		{ID: "capped", Min: 1, Max: 10, Demand: 2, Work: 20, Weight: 1},
	}}
	r, err := solver.Flex{}.Solve(p)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]solver.Reason{}
	for _, a := range r.Allocations {
		got[a.ID] = a.Reason
	}
	want := map[string]solver.Reason{"long": solver.ReasonMin, "short": solver.ReasonMax, "mid": solver.ReasonPartial, "capped": solver.ReasonDemand}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("job %s: reason %q, want %q (allocations %+v)", id, got[id], w, r.Allocations)
		}
	}
}
