package rap_test

import (
	"fmt"
	"math"

	"github.com/flexd/flexd/solver/rap"
)

// Two jobs with 2 and 8 slot-seconds of work share 5 slots; the penalty is
// the completion time W_j / s_j (FLEX Fig. 1a, now = 0).
func Example() {
	work := []float64{2, 8}
	p := rap.Problem{
		Slots: 5,
		Min:   []int{0, 0},
		Max:   []int{5, 5},
		F: func(j, s int) float64 {
			if s == 0 {
				return math.Inf(1) // never completes
			}
			return work[j] / float64(s)
		},
	}
	sum := rap.Threshold(p)
	fmt.Println("minisum:", sum, rap.SumOf(p, sum))
	mm := rap.Minimax(p)
	fmt.Println("minimax:", mm, rap.MaxOf(p, mm))
	// Output:
	// minisum: [2 3] 3.6666666666666665
	// minimax: [1 4] 2
}

// Knapsack on SLA-like staircases: each job lists its minimum and the
// least slot count reaching each lower penalty level.
func ExampleKnapsack() {
	choices := [][]rap.Choice{
		{{Slots: 1, Value: 5}, {Slots: 3, Value: 1}},
		{{Slots: 1, Value: 4}, {Slots: 2, Value: 2}, {Slots: 4, Value: 0}},
	}
	pick, _, exact := rap.Knapsack(5, choices, 0)
	fmt.Println(pick, exact)
	// Output: [1 1] true
}
