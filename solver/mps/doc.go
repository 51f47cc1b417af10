// Package mps is the Malleable Packing Scheme of FLEX (Wolf et al.,
// Middleware 2010, section 3.1, Fig. 3 and Fig. 4): given a priority order
// over jobs with minimum and maximum slots and remaining work, it builds the
// malleable schedule in which every live job holds its minimum and the slack
// is handed down the order, each job up to its maximum, until the next
// completion.
//
// The paper's loop recomputes every interval from scratch, O(J^2) for J jobs.
// This package runs it event-driven in O(J log J) (docs/algorithms.md
// section 3): the slack only grows as jobs complete, so the boundary between
// jobs at their maximum and jobs at their minimum moves monotonically down
// the order and each job's slot count changes O(1) times amortised. A heap
// keyed by projected completion time, with work accounted lazily at each
// slot change, finds every next completion; beside it are the jobs at
// their minima (a list sorted once: their completions are known from the
// start) and the one job partially topped up at the boundary (its slots
// change at almost every event).
//
// Pack returns the whole Plan (what the caller enforces now and the projected
// schedule behind it); Packer.Completions computes only the completion times
// without allocating, for the local search that scores thousands of orders.
//
// Both are pure: no I/O, clock or globals. Times are float64 seconds on the
// caller's clock, work is float64 slot-seconds (linear speedup, FLEX 2.5),
// slots are ints.
package mps
