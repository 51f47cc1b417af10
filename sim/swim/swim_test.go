package swim

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadFacebook2009(t *testing.T) {
	f, err := os.Open("../testdata/swim/FB-2009_samples_24_times_1hr_0.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	jobs, err := Read(f, Conversion{})
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(jobs)
	// The README's count, the trace's 24 one-hour samples, and the 4448
	// lines with no shuffle (awk -F'\t' '$5==0' | wc -l).
	if s.Jobs != 5894 || s.MapOnly != 4448 || s.FirstSubmit != 49 || s.LastSubmit != 86404 {
		t.Errorf("summary %+v: want 5894 jobs, 4448 map-only, submits 49..86404", s)
	}
	want := Job{Line: 1, Name: "job0", Submit: 49, Gap: 49, InputBytes: 740773, ShuffleBytes: 2339561, OutputBytes: 627471,
		MapTasks: 1, ReduceTasks: 1, MapWork: 1, ReduceWork: 1}
	if diff := cmp.Diff(want, jobs[0]); diff != "" {
		t.Errorf("first job (-want +got):\n%s", diff)
	}
	for _, j := range jobs {
		if j.MapTasks < 1 || j.MapWork <= 0 || (j.ShuffleBytes > 0) != (j.ReduceTasks > 0) || (j.ReduceTasks > 0) != (j.ReduceWork > 0) {
			t.Fatalf("line %d: inconsistent job %+v", j.Line, j)
		}
	}
}

func TestConvert(t *testing.T) {
	c := Conversion{BlockBytes: 100, MapRate: 10, ReduceRate: 5, ReduceBytes: 1000, MinTaskWork: 0.5}
	cases := map[string]struct {
		in, want Job
	}{
		"one block":          {Job{InputBytes: 100, ShuffleBytes: 50, OutputBytes: 25}, Job{InputBytes: 100, ShuffleBytes: 50, OutputBytes: 25, MapTasks: 1, ReduceTasks: 1, MapWork: 10, ReduceWork: 15}},
		"blocks round up":    {Job{InputBytes: 101, ShuffleBytes: 2001}, Job{InputBytes: 101, ShuffleBytes: 2001, MapTasks: 2, ReduceTasks: 3, MapWork: 10.1, ReduceWork: 400.2}},
		"map-only writes":    {Job{InputBytes: 300, OutputBytes: 100}, Job{InputBytes: 300, OutputBytes: 100, MapTasks: 3, MapWork: 40}},
		"empty job":          {Job{}, Job{MapTasks: 1, MapWork: 0.5}},
		"task start-up cost": {Job{InputBytes: 1000, ShuffleBytes: 1}, Job{InputBytes: 1000, ShuffleBytes: 1, MapTasks: 10, ReduceTasks: 1, MapWork: 100, ReduceWork: 0.5}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, c.Convert(tc.in)); diff != "" {
				t.Errorf("Convert (-want +got):\n%s", diff)
			}
		})
	}
	if d := DefaultConversion(); d.BlockBytes != 64*MiB || d.MapRate != 8*MiB || d.ReduceRate != 4*MiB || d.ReduceBytes != 1024*MiB || d.MinTaskWork != 1 {
		t.Errorf("DefaultConversion() = %+v", d)
	}
}

func TestReadErrors(t *testing.T) {
	cases := map[string]struct {
		input, wantErr string
	}{
		"too few fields":   {"a\t1\t1\t1\t1\t1\nb\t2\t1\t1\t1\n", "swim: line 2: 5 tab-separated fields, want 6"},
		"bad submit":       {"a\tsoon\t1\t1\t1\t1\n", `swim: line 1: submit time "soon": want a non-negative number of seconds`},
		"negative gap":     {"a\t1\t-1\t1\t1\t1\n", `swim: line 1: gap "-1": want a non-negative number of seconds`},
		"fractional bytes": {"\na\t1\t1\t1.5\t1\t1\n", `swim: line 2: input bytes "1.5": want a non-negative integer`},
		"negative shuffle": {"a\t1\t1\t1\t-3\t1\n", `swim: line 1: shuffle bytes "-3": want a non-negative integer`},
		"empty name":       {"\t1\t1\t1\t1\t1\n", "swim: line 1: empty job name"},
		"spaces not tabs":  {"a 1 1 1 1 1\n", "swim: line 1: 1 tab-separated fields, want 6"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.input), Conversion{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("Read error %v, want prefix %q", err, tc.wantErr)
			}
		})
	}
	if _, err := Read(strings.NewReader(""), Conversion{MapRate: -1}); err == nil {
		t.Error("negative map rate: no error")
	}
	jobs, err := Read(strings.NewReader("a\t1\t1\t1\t0\t1\r\n\n"), Conversion{})
	if err != nil || len(jobs) != 1 || jobs[0].OutputBytes != 1 {
		t.Errorf("CRLF and blank lines: %v, %+v", err, jobs)
	}
}
