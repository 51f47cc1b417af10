// Package ratio owns the phase-budget stage that runs before FLEX each
// epoch (docs/algorithms.md section 7): how many slots the map phase and the
// reduce phase (and, in PD-DHSA, each pool's map and reduce phase) may use,
// and OMO's per-job decisions on when a job starts its reduce phase and
// which job finishes its tail of map tasks in a batch.
//
// Modes, chosen by Config.Mode:
//
//   - static: the caller's map and reduce slot counts, unchanged.
//   - pi_dhsa: DynamicMR Algorithm 1 (pool-independent Dynamic Hadoop Slot
//     Allocation): four cases on the phases' load factors; the over-loaded
//     phase borrows part of the other phase's unused slots (Appendix F's
//     percentages), with an optional reduce-slot weight (challenge C2).
//   - pd_dhsa: DynamicMR Algorithm 2 and the case analysis of its main
//     paper: pools share each phase max-min fairly, and a pool lends its
//     unused share of one phase to its own other phase before other pools.
//   - fresh: Wang's FRESH (dissertation ch. 3): all slots fungible, the map
//     budget follows the remaining-work ratio theta (Alg. 3.3.3) with the
//     look-ahead of Theorem 3.3.1.
//
// OMO (dissertation ch. 4) runs on top of any mode but static: it keeps the
// slot-release frequency and available-slot EMAs of Eq. 4.1 in State, which
// the caller persists between epochs.
//
// SlotConfig is FRESH's static planning call (Alg. 3.3.1) and Jain /
// OverallFairness are FRESH's fairness measure (Eq. 3.1).
//
// The package is pure: no I/O, clock, globals or logging. Every result
// depends on its input only; ties are broken explicitly, ending in the job or
// pool id.
package ratio
