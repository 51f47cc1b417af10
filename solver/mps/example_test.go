package mps_test

import (
	"fmt"

	"github.com/flexd/flexd/solver/mps"
)

// Three jobs on 10 slots in priority order 0, 1, 2. Job 0 gets its maximum,
// job 1 the rest of the slack (a partial top-up), job 2 its minimum. Each
// completion frees slots that flow down the order.
func ExamplePack() {
	in := mps.Input{
		Slots: 10,
		Now:   0,
		Min:   []int{2, 2, 1},
		Max:   []int{6, 5, 10},
		Work:  []float64{12, 10, 30}, // slot-seconds
	}
	plan := mps.Pack(in, []int{0, 1, 2})
	plan.Each(func(k int, start, end float64, slots []int) {
		fmt.Printf("[%.1f, %.1f) slots %v\n", start, end, slots)
	})
	fmt.Println("first:", plan.First)
	fmt.Printf("completions: %.4g\n", plan.Completions)
	// Output:
	// [0.0, 2.0) slots [6 3 1]
	// [2.0, 2.8) slots [0 5 5]
	// [2.8, 5.2) slots [0 0 10]
	// first: [6 3 1]
	// completions: [2 2.8 5.2]
}

// A Packer scores many orders without allocating, as local search does.
func ExamplePacker_Completions() {
	in := mps.Input{Slots: 4, Min: []int{1, 1}, Max: []int{4, 4}, Work: []float64{8, 4}}
	var p mps.Packer
	out := make([]float64, 2)
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		p.Completions(in, order, out)
		fmt.Printf("order %v: completions %.4g\n", order, out)
	}
	// Output:
	// order [0 1]: completions [2.667 3]
	// order [1 0]: completions [3 1.333]
}
