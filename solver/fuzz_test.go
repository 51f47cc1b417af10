package solver_test

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
	"github.com/flexd/flexd/solver/solvertest"
)

// FuzzSolve feeds every policy arbitrary problems built from the fuzzer's
// bytes, valid and not: a valid one must conform (solvertest.Check), an
// invalid one must be refused with a *solver.ValidationError, and nothing
// may panic.
//
//	go test ./solver -run '^$' -fuzz FuzzSolve -fuzztime 10m
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 10, 1, 2, 8, 40, 0, 1, 5, 9, 0, 2, 2, 4, 200, 1, 0})
	f.Add([]byte{1, 1, 0, 0, 1, 1, 0})
	f.Add([]byte{9, 200, 250, 2, 255, 7, 33, 4, 120, 9, 9, 9, 1, 1, 1, 1, 1, 3, 7, 16, 16})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkSolvers(t, fuzzProblem(data), solver.Names())
	})
}

// FuzzSolveAtScale is FuzzSolve past maxExhaustiveSearchJobs (13 to 60
// jobs, distinct ids), where FLEX's search at scale runs on sums (window,
// split, exchange and level searches) and the critical search, iterated,
// on maxima.
//
//	go test ./solver -run '^$' -fuzz FuzzSolveAtScale -fuzztime 5m
func FuzzSolveAtScale(f *testing.F) {
	f.Add([]byte{3, 10, 1, 2, 8, 40, 0, 1, 5, 9, 0, 2, 2, 4, 200, 1, 0})
	f.Add([]byte{40, 250, 0, 9, 1, 30, 7, 3, 2, 1, 1, 1, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, data []byte) {
		p := scaleProblem(data)
		if err := solver.Validate(p); err != nil {
			t.Fatalf("scaleProblem built an invalid problem: %v", err)
		}
		checkSolvers(t, p, []string{"flex", "fair"})
	})
}

// scaleProblem builds a valid problem of 13 to 60 jobs from the fuzzer's
// bytes: minima of 0 to 3 (their sum may pass the slots, which Solve
// normalises), caps up to 40 (possibly above the slots), works from 1/256
// to 2^17 slot-seconds, deadlines and SLA steps that may lie before now.
func scaleProblem(data []byte) solver.Problem {
	metrics := penalty.All()
	next := byteReader(data)
	n := 13 + next()%48
	info := metrics[next()%len(metrics)]
	p := solver.Problem{Slots: n * (1 + next()%10), Now: float64(next() % 7), Metric: info.Name}
	for i := range n {
		lo := next() % 4
		j := solver.Job{
			ID:          fmt.Sprintf("j%d", i),
			Min:         lo,
			Max:         lo + 1 + next()%40,
			Work:        math.Pow(2, float64(next()%24)-8) * float64(1+next()%4),
			Submitted:   -float64(next() % 9),
			Weight:      float64(1+next()%7) / 3,
			Deadline:    float64(next() % 200),
			HasDeadline: info.NeedsDeadline || next()%8 != 0,
		}
		pen := 0.0
		steps := next() % 4
		if info.NeedsSLA {
			steps = 1 + steps%3
		}
		for k := range steps {
			pen += float64(1 + next()%3)
			j.SLA = append(j.SLA, penalty.Step{Deadline: float64(k*40 + next()%40), Penalty: pen})
		}
		p.Jobs = append(p.Jobs, j)
	}
	return p
}

// byteReader returns a function that reads the fuzzer's bytes one at a
// time, then zeros.
func byteReader(data []byte) func() int {
	return func() int {
		if len(data) == 0 {
			return 0
		}
		b := int(data[0])
		data = data[1:]
		return b
	}
}

// fuzzProblem builds a problem of up to 8 jobs from the fuzzer's bytes,
// valid and not (ids from 12 letters, so duplicates too).
func fuzzProblem(data []byte) solver.Problem {
	metrics := penalty.All()
	next := byteReader(data)
	n := next() % 9
	p := solver.Problem{Slots: next() - 5, Now: float64(next() % 7), Metric: metrics[next()%len(metrics)].Name}
	for i := 0; i < n; i++ {
		j := solver.Job{
			ID:          string(rune('a' + next()%12)),
			Min:         next()%20 - 2,
			Max:         next()%40 - 2,
			Work:        math.Pow(2, float64(next()%30)-8) * float64(next()%5),
			Submitted:   -float64(next() % 9),
			Weight:      float64(next()%7) / 3,
			Deadline:    float64(next() % 50),
			HasDeadline: next()%8 != 0,
			Demand:      next()%30 - 1,
		}
		for k, steps := 0, next()%4; k < steps; k++ {
			j.SLA = append(j.SLA, penalty.Step{Deadline: float64(k*10 + next()%12), Penalty: float64(k + next()%3)})
		}
		if next()%5 == 0 {
			j.Metric = metrics[next()%len(metrics)].Name
		}
		p.Jobs = append(p.Jobs, j)
	}
	return p
}

// checkSolvers solves p with each named policy: a valid problem must be
// answered conformingly (solvertest.Check), an invalid one refused with a
// *solver.ValidationError naming a field, and nothing may panic.
func checkSolvers(t *testing.T, p solver.Problem, names []string) {
	t.Helper()
	valid := solver.Validate(p) == nil
	for _, name := range names {
		s, _ := solver.ByName(name)
		r, err := s.Solve(p)
		var ve *solver.ValidationError
		switch {
		case err != nil && errors.As(err, &ve):
			if valid && !(name == "optimal" && len(p.Jobs) > solver.MaxOptimalJobs) {
				t.Fatalf("%s refused a valid problem: %v", name, err)
			}
			for _, fe := range ve.Problems {
				if fe.Field == "" || fe.Message == "" {
					t.Fatalf("%s: problem without a field or message: %+v", name, fe)
				}
			}
		case err != nil:
			t.Fatalf("%s: error of the wrong kind: %v", name, err)
		case !valid:
			t.Fatalf("%s accepted an invalid problem", name)
		default:
			tr := solvertest.Traits{HonorsMinima: name != "fifo", NoSlack: true}
			if bad := solvertest.Check(p, r, tr); len(bad) > 0 {
				t.Fatalf("%s: %s", name, strings.Join(bad, "; "))
			}
		}
	}
}
