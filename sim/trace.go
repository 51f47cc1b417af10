package sim

import _ "embed" // the SWIM sample below

// SWIMSampleName names the SWIM trace embedded as SWIMSample, as the
// repository holds it.
const SWIMSampleName = "sim/testdata/swim/FB-2009_samples_24_times_1hr_0.tsv"

// SWIMSample is the SWIM Facebook 2009 sample trace (sim/testdata/swim,
// with its licence there), embedded so that `flexd simulate run` finds its
// default workload from any directory.
//
//go:embed testdata/swim/FB-2009_samples_24_times_1hr_0.tsv
var SWIMSample []byte
