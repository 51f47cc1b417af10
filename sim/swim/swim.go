// Package swim reads MapReduce workload traces in the format of SWIM, the
// Statistical Workload Injector for MapReduce (UC Berkeley), such as the
// Facebook 2009 samples in ../testdata/swim, and turns each job's bytes into
// map and reduce tasks and work in slot-seconds.
//
// A trace holds no task counts or durations, only bytes, so the conversion
// rests on stated constants (Conversion); every simulation using a trace
// should report the ones it used. A trace line is tab-separated: job name,
// submit time (seconds from the start of the trace), seconds since the
// previous submission, map input bytes, shuffle bytes, reduce output bytes.
package swim

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MiB is 2^20 bytes.
const MiB = 1 << 20

// Conversion holds the constants that turn a job's bytes into tasks and
// work. The zero value of each field means its default.
type Conversion struct {
	// BlockBytes is the map input per map task: one map task per block,
	// at least one per job (default 64 MiB, HDFS's default block in 2009).
	BlockBytes float64
	// MapRate is the bytes per second one map slot processes (default
	// 8 MiB/s: a 64 MiB block in 8 s).
	MapRate float64
	// ReduceRate is the bytes per second one reduce slot handles of
	// shuffle input plus reduce output (default 4 MiB/s).
	ReduceRate float64
	// ReduceBytes is the shuffle input per reduce task: one reduce task
	// per ReduceBytes, at least one when there is a shuffle and none
	// without (default 1 GiB).
	ReduceBytes float64
	// MinTaskWork is the least work of one task, slot-seconds (default 1:
	// task start-up), so an empty job still takes time.
	MinTaskWork float64
}

// DefaultConversion returns the defaults spelled out.
func DefaultConversion() Conversion { return Conversion{}.withDefaults() }

func (c Conversion) withDefaults() Conversion {
	c.BlockBytes = cmp.Or(c.BlockBytes, 64*MiB)
	c.MapRate = cmp.Or(c.MapRate, 8*MiB)
	c.ReduceRate = cmp.Or(c.ReduceRate, 4*MiB)
	c.ReduceBytes = cmp.Or(c.ReduceBytes, 1024*MiB)
	c.MinTaskWork = cmp.Or(c.MinTaskWork, 1)
	return c
}

// Validate reports a constant that is negative, NaN or infinite.
func (c Conversion) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"block bytes", c.BlockBytes}, {"map rate", c.MapRate}, {"reduce rate", c.ReduceRate},
		{"reduce bytes", c.ReduceBytes}, {"min task work", c.MinTaskWork}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("swim: %s = %v, want a positive number (0 for the default)", f.name, f.v)
		}
	}
	return nil
}

// Job is one trace job with its derived tasks and work.
type Job struct {
	// Line is the job's line number in the trace (from 1).
	Line int
	Name string
	// Submit is the submission time, seconds from the start of the trace;
	// Gap the seconds since the previous submission, as recorded.
	Submit, Gap float64
	// InputBytes, ShuffleBytes and OutputBytes are the recorded sizes.
	InputBytes, ShuffleBytes, OutputBytes int64
	// MapTasks >= 1 and ReduceTasks >= 0 are the derived task counts.
	MapTasks, ReduceTasks int
	// MapWork and ReduceWork are the derived work, slot-seconds. A job
	// without shuffle is map-only: its maps also write its output, so
	// MapWork includes the output at the map rate and ReduceWork is 0.
	MapWork, ReduceWork float64
}

// Convert derives a job's tasks and work from its bytes with c.
func (c Conversion) Convert(j Job) Job {
	c = c.withDefaults()
	in, sh, out := float64(j.InputBytes), float64(j.ShuffleBytes), float64(j.OutputBytes)
	j.MapTasks = max(1, int(math.Ceil(in/c.BlockBytes)))
	j.ReduceTasks, j.ReduceWork = 0, 0
	mapBytes := in
	if j.ShuffleBytes > 0 {
		j.ReduceTasks = max(1, int(math.Ceil(sh/c.ReduceBytes)))
		j.ReduceWork = math.Max((sh+out)/c.ReduceRate, float64(j.ReduceTasks)*c.MinTaskWork)
	} else {
		mapBytes += out
	}
	j.MapWork = math.Max(mapBytes/c.MapRate, float64(j.MapTasks)*c.MinTaskWork)
	return j
}

// Read parses a SWIM trace and converts every job with c. Blank lines are
// skipped; any other malformed line is an error naming its line number.
func Read(r io.Reader, c Conversion) ([]Job, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var jobs []Job
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		j, err := parseLine(text)
		if err != nil {
			return nil, fmt.Errorf("swim: line %d: %w", line, err)
		}
		j.Line = line
		jobs = append(jobs, c.Convert(j))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("swim: after line %d: %w", line, err)
	}
	return jobs, nil
}

func parseLine(text string) (Job, error) {
	f := strings.Split(text, "\t")
	if len(f) != 6 {
		return Job{}, fmt.Errorf("%d tab-separated fields, want 6 (name, submit, gap, input, shuffle, output bytes)", len(f))
	}
	j := Job{Name: f[0]}
	if j.Name == "" {
		return Job{}, fmt.Errorf("empty job name")
	}
	times := []*float64{&j.Submit, &j.Gap}
	for x, name := range []string{"submit time", "gap"} {
		v, err := strconv.ParseFloat(f[1+x], 64)
		if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
			return Job{}, fmt.Errorf("%s %q: want a non-negative number of seconds", name, f[1+x])
		}
		*times[x] = v
	}
	sizes := []*int64{&j.InputBytes, &j.ShuffleBytes, &j.OutputBytes}
	for x, name := range []string{"input bytes", "shuffle bytes", "output bytes"} {
		v, err := strconv.ParseInt(f[3+x], 10, 64)
		if err != nil || v < 0 {
			return Job{}, fmt.Errorf("%s %q: want a non-negative integer", name, f[3+x])
		}
		*sizes[x] = v
	}
	return j, nil
}

// Summary totals a converted trace.
type Summary struct {
	Jobs, MapOnly           int
	MapTasks, ReduceTasks   int
	MapWork, ReduceWork     float64 // slot-seconds
	FirstSubmit, LastSubmit float64 // seconds
	// LargestWork is the largest MapWork + ReduceWork of one job.
	LargestWork float64
}

// Summarize totals jobs.
func Summarize(jobs []Job) Summary {
	var s Summary
	for i, j := range jobs {
		s.Jobs++
		if j.ReduceTasks == 0 {
			s.MapOnly++
		}
		s.MapTasks += j.MapTasks
		s.ReduceTasks += j.ReduceTasks
		s.MapWork += j.MapWork
		s.ReduceWork += j.ReduceWork
		s.LargestWork = math.Max(s.LargestWork, j.MapWork+j.ReduceWork)
		if i == 0 || j.Submit < s.FirstSubmit {
			s.FirstSubmit = j.Submit
		}
		s.LastSubmit = math.Max(s.LastSubmit, j.Submit)
	}
	return s
}
