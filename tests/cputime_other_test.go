//go:build !unix

package tests

import "time"

// processCPU is not measured here: benchmarks leave cpu-ms/epoch out.
func processCPU() time.Duration { return 0 }
