// Package rap solves the separable resource allocation problems (RAPs) of
// FLEX's generic ordering scheme (Wolf et al., Middleware 2010, section 3.2;
// docs/algorithms.md section 4 item 1).
//
// A RAP chooses an integer slot count s_j in [Min_j, Max_j] for every job j,
// with sum_j s_j <= S, minimising either sum_j F_j(s_j) (minisum) or
// max_j F_j(s_j) (minimax). For FLEX, F_j(s) is job j's penalty when it holds
// s slots from now until done, that is completes at now + W_j / s; it is
// therefore non-increasing in s, and F_j(0) is usually +Inf.
//
// The solvers, by the shape of F:
//
//   - Greedy: Fox's marginal-analysis greedy (FLEX ref. [15]); exact for convex
//     minisum problems (non-increasing marginal gains F_j(s) - F_j(s+1)) and
//     the oracle for Threshold. O(J + R log J), R = S - sum_j Min_j.
//   - Threshold: a Lagrangian threshold search on marginal gains, the
//     practical form of the Galil-Megiddo / Frederickson-Johnson schemes the
//     paper cites (refs. [16], [17]); same objective as Greedy, about
//     O(J log S) evaluations, O(J) per round with an Inverse.
//   - Knapsack: a multiple-choice knapsack DP for non-convex (step or ramp)
//     minisum problems such as tardy jobs and SLA costs, in
//     O(S * sum of choices) instead of the paper's O(J S^2) DP, with exact
//     fast paths for two-choice jobs and a stated greedy approximation past a
//     cell budget.
//   - Minimax: bisection on the threshold theta. The paper's transform
//     G_j(s) = sum_{i<=s} F_j(i) is not used: for penalties that fall with s it
//     is concave (docs/algorithms.md section 4, "minimax correction").
//
// The package is pure computation: it knows nothing of penalties or
// schedules, only of the functions and values the caller passes, and every
// result is a deterministic function of its input (ties: lower job index,
// then fewer slots).
package rap
