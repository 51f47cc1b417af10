// Package fairshare is FAIR, the allocation layer of the Hadoop Fair
// Scheduler (HFS) that FLEX (Wolf et al., Middleware 2010, section 4) is
// measured against, reproduced exactly as docs/fair-share.md specifies.
//
// It owns three steps:
//
//   - Compute: Hadoop's own fair-share computation, bit for bit, in two
//     variants: MRv1 (SchedulingAlgorithms.computeFairShares of the contrib
//     fair scheduler, Hadoop 0.21 / 1.x, what FLEX compared against) and YARN
//     (policies/ComputeFairShares of the YARN FairScheduler, 2.6 to trunk).
//     A shim comparing its scheduler's numbers with flexd's must see the same
//     numbers, quirks included, so these are the conformance surface
//     (explain.fair_shares).
//   - Slots: the feasible integer allocation derived from those shares: every
//     job within [min, max], no slot left idle while demand remains, never
//     more than S (docs/fair-share.md, "From fair shares to slots";
//     docs/algorithms.md section 1, "No slack left behind").
//   - Plan: the FAIR schedule from now on: allocate, run until the first job
//     completes (linear speedup, FLEX 2.5), recompute, repeat; returned as an
//     mps.Plan like every other policy's (docs/algorithms.md section 5).
//
// Everything here is pure computation: no I/O, clock, globals or logging, and
// every tie is broken explicitly, so equal inputs give equal outputs.
package fairshare
