// Package sim compares flexd's allocation policies by simulation. It owns the
// workload generator of FLEX section 4.1 (Wolf et al., Middleware 2010) and
// the study built on it: every policy's objective on every generated
// instance, for every metric of the menu, divided by OPT's, summarised as an
// average and a worst ratio per (metric, policy), as in the paper's Fig. 5.
//
// Everything here is deterministic: an instance depends only on the
// workload parameters, the study seed and its index (each instance has its
// own PCG stream), and per-instance results are written by index and folded
// in index order, so the same seed gives the same numbers on any number of
// cores. There is no clock and no global random source.
//
// Real traces live in subpackage swim (the SWIM Facebook 2009 workload).
package sim
