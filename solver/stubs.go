package solver

import "errors"

var errNotYet = errors.New("policy not implemented yet")

// Flex is the FLEX driver (FLEX section 3).
type Flex struct{}

// Name implements Solver.
func (Flex) Name() string { return "flex" }

// Solve implements Solver.
func (Flex) Solve(p Problem) (Result, error) { return Result{}, errNotYet }

// Fair is Hadoop's fair-share allocation.
type Fair struct{}

// Name implements Solver.
func (Fair) Name() string { return "fair" }

// Solve implements Solver.
func (Fair) Solve(p Problem) (Result, error) { return Result{}, errNotYet }

// FIFO is MPS in arrival order with minima 0.
type FIFO struct{}

// Name implements Solver.
func (FIFO) Name() string { return "fifo" }

// Solve implements Solver.
func (FIFO) Solve(p Problem) (Result, error) { return Result{}, errNotYet }

// Optimal is the best MPS order by exhaustive search.
type Optimal struct{}

// Name implements Solver.
func (Optimal) Name() string { return "optimal" }

// Solve implements Solver.
func (Optimal) Solve(p Problem) (Result, error) { return Result{}, errNotYet }
