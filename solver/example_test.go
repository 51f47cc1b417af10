package solver_test

import (
	"fmt"

	"github.com/flexd/flexd/penalty"
	"github.com/flexd/flexd/solver"
)

// Three jobs share 10 slots. FLEX gives the slack to the job that finishes
// soonest (b), holds the others at their minima, and reports why.
func Example() {
	s, _ := solver.ByName("flex")
	res, err := s.Solve(solver.Problem{
		Slots:  10,
		Metric: penalty.AvgResponseTime,
		Jobs: []solver.Job{
			{ID: "a", Min: 1, Max: 8, Work: 40, Weight: 1},
			{ID: "b", Min: 1, Max: 8, Work: 10, Weight: 1},
			{ID: "c", Min: 2, Max: 10, Work: 200, Weight: 1},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range res.Allocations {
		fmt.Printf("%s: %d slots (%s), done at %.2f s\n", a.ID, a.Slots, a.Reason, res.Plan.Completions[indexOf(res, a.ID)])
	}
	fmt.Printf("total response time %.2f s\n", res.Value)
	// Output:
	// a: 1 slots (min), done at 6.25 s
	// b: 7 slots (partial), done at 1.43 s
	// c: 2 slots (min), done at 25.00 s
	// total response time 32.68 s
}

func indexOf(res solver.Result, id string) int {
	for i, a := range res.Allocations {
		if a.ID == id {
			return i
		}
	}
	return -1
}

// A problem that breaks the rules is refused with every problem listed,
// each naming its field and job.
func Example_validation() {
	_, err := solver.Flex{}.Solve(solver.Problem{Slots: 4, Jobs: []solver.Job{
		{ID: "a", Max: 2, Work: -1},
		{ID: "a", Max: 2, Work: 3},
	}})
	fmt.Println(err)
	// Output:
	// invalid problem: jobs[0].work (job "a"): must be a finite number > 0, got -1; jobs[1].id (job "a"): duplicates jobs[0].id
}
