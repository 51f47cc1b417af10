package solver_test

import (
	"errors"
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
	metrics := penalty.All()
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
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
		valid := solver.Validate(p) == nil
		for _, name := range solver.Names() {
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
	})
}
