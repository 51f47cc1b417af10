// Package mps is the Malleable Packing Scheme of FLEX (Wolf et al.,
// Middleware 2010, section 3.3, Fig. 3): given a priority order over jobs
// with minimum and maximum slots and remaining work, it builds the malleable
// schedule in which every live job holds its minimum and the slack is handed
// down the order, each job up to its maximum, until the next completion.
package mps
