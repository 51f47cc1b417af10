package epoch_test

import (
	"math"
	"slices"
	"testing"

	"github.com/flexd/flexd/epoch"
	"github.com/flexd/flexd/epoch/epochtest"
)

func fp(x float64) *float64 { return &x }
func ip(n int) *int         { return &n }

// taskStateRequest is a valid request with the task-level state: two
// nodes holding the cluster's 4 map and 2 reduce slots, one running map
// attempt, one waiting backup, one completed map and a finished job.
func taskStateRequest() epoch.Request {
	req := epochtest.Request(3).Slots(4, 2).Jobs(twoPhase("job_1").Build()).Build()
	req.Now = 100
	req.Speculation = &epoch.Speculation{Detector: "esamr"}
	req.Nodes = []epoch.Node{
		{ID: "n1", MapSlots: 2, ReduceSlots: 1, RunningMap: 1},
		{ID: "n2", MapSlots: 2, ReduceSlots: 1},
	}
	req.Tasks = []epoch.TaskAttempt{
		{Attempt: "a1", Task: "t1", Job: "job_1", Phase: "map", Node: "n1", Start: fp(40),
			Progress: fp(0.5), Stage: "map", StageProgress: fp(0.75)},
		{Attempt: "a1b", Task: "t1", Job: "job_1", Phase: "map", Speculative: true, State: "waiting"},
	}
	req.CompletedTasks = []epoch.CompletedTask{
		{Attempt: "a0", Task: "t0", Job: "job_1", Phase: "map", Node: "n2", Start: 10, Finish: 50, StageTimes: []float64{30, 10}},
	}
	req.FinishedJobs = []string{"job_0"}
	return req
}

// TestValidateTaskState: every rule of estimate-and-advice.md section 2.6
// is a problem at the field's wire path, and the valid request has none.
func TestValidateTaskState(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(r *epoch.Request)
		want   []string
	}{
		"valid":                  {change: func(r *epoch.Request) {}},
		"unknown detector":       {func(r *epoch.Request) { r.Speculation.Detector = "magic" }, []string{"speculation.detector"}},
		"pfm out of range":       {func(r *epoch.Request) { r.Speculation.ESAMR.PFM = fp(0) }, []string{"speculation.esamr.pfm"}},
		"stt not finite":         {func(r *epoch.Request) { r.Speculation.ESAMR.STT = fp(math.Inf(1)) }, []string{"speculation.esamr.stt"}},
		"k too large":            {func(r *epoch.Request) { r.Speculation.ESAMR.K = ip(1 << 20) }, []string{"speculation.esamr.k"}},
		"history 0":              {func(r *epoch.Request) { r.Speculation.ESAMR.History = ip(0) }, []string{"speculation.esamr.history"}},
		"cap fraction":           {func(r *epoch.Request) { r.Speculation.Cap.TotalFraction = fp(1.5) }, []string{"speculation.cap.total_fraction"}},
		"esplash progress":       {func(r *epoch.Request) { r.Speculation.ESPLASH.Progress = "x" }, []string{"speculation.esplash.progress"}},
		"unknown esamr basis":    {func(r *epoch.Request) { r.Speculation.ESAMR.Basis = "x" }, []string{"speculation.esamr.basis"}},
		"jobs_checked above one": {func(r *epoch.Request) { r.Speculation.SEPB.JobsChecked = fp(1.5) }, []string{"speculation.sepb.jobs_checked"}},
		"kill_factor below one":  {func(r *epoch.Request) { r.Speculation.SEPB.KillFactor = fp(0.5) }, []string{"speculation.sepb.kill_factor"}},
		"unknown sepb scope":     {func(r *epoch.Request) { r.Speculation.SEPB.Scope = "rack" }, []string{"speculation.sepb.scope"}},
		"local_pending on an unknown node": {func(r *epoch.Request) { r.Jobs[0].Map.LocalPending = map[string]int{"n9": 1} },
			[]string{"jobs[0].map.local_pending"}},
		"local_pending above pending": {func(r *epoch.Request) {
			r.Jobs[0].Map.Pending, r.Jobs[0].Map.LocalPending = 1, map[string]int{"n1": 2}
		}, []string{"jobs[0].map.local_pending"}},
		"preschedule without nodes": {func(r *epoch.Request) {
			r.Preschedule.Enabled, r.Nodes, r.Tasks = true, nil, nil
		}, []string{"nodes"}},
		"negative borrowing bound": {func(r *epoch.Request) { r.Preschedule.MaxBorrowedReduceSlots = ip(-1) },
			[]string{"preschedule.max_borrowed_reduce_slots"}},
		"duplicate node":           {func(r *epoch.Request) { r.Nodes[1].ID = "n1" }, []string{"nodes[1].id"}},
		"node slots do not add up": {func(r *epoch.Request) { r.Nodes[1].MapSlots = 3 }, []string{"nodes"}},
		"node over-committed": {func(r *epoch.Request) { r.Nodes[0].RunningMap, r.Nodes[0].ReduceOnMap = 2, 1 },
			[]string{"nodes[0].running_map"}},
		"levels on some nodes only":  {func(r *epoch.Request) { r.Nodes[0].Level = 2 }, []string{"nodes"}},
		"negative level":             {func(r *epoch.Request) { r.Nodes[0].Level = -1 }, []string{"nodes[0].level"}},
		"attempt on an unknown node": {func(r *epoch.Request) { r.Tasks[0].Node = "n9" }, []string{"tasks[0].node"}},
		"attempt of an unknown job":  {func(r *epoch.Request) { r.Tasks[0].Job = "job_9" }, []string{"tasks[0].job"}},
		"duplicate attempt":          {func(r *epoch.Request) { r.Tasks[1].Attempt = "a1" }, []string{"tasks[1].attempt"}},
		"progress above 1":           {func(r *epoch.Request) { r.Tasks[0].Progress = fp(1.2) }, []string{"tasks[0].progress"}},
		"stage_progress NaN":         {func(r *epoch.Request) { r.Tasks[0].StageProgress = fp(math.NaN()) }, []string{"tasks[0].stage_progress"}},
		"stage of the other phase":   {func(r *epoch.Request) { r.Tasks[0].Stage = "shuffle" }, []string{"tasks[0].stage"}},
		"unknown phase":              {func(r *epoch.Request) { r.Tasks[0].Phase = "combine" }, []string{"tasks[0].phase"}},
		"start after now":            {func(r *epoch.Request) { r.Tasks[0].Start = fp(101) }, []string{"tasks[0].start"}},
		"negative progress rate":     {func(r *epoch.Request) { r.Tasks[0].ProgressRate = fp(-1) }, []string{"tasks[0].progress_rate"}},
		"unknown state":              {func(r *epoch.Request) { r.Tasks[1].State = "done" }, []string{"tasks[1].state"}},
		"esamr without stage": {func(r *epoch.Request) { r.Tasks[0].Stage, r.Tasks[0].StageProgress = "", nil },
			[]string{"tasks[0].stage", "tasks[0].stage_progress"}},
		"esplash without progress or nodes": {func(r *epoch.Request) {
			r.Speculation.Detector, r.Tasks[0].Progress, r.Nodes = "esplash", nil, nil
		}, []string{"tasks[0].progress", "nodes"}},
		"stage times of the wrong length": {func(r *epoch.Request) { r.CompletedTasks[0].StageTimes = []float64{1, 2, 3} },
			[]string{"completed_tasks[0].stage_times"}},
		"negative stage time": {func(r *epoch.Request) { r.CompletedTasks[0].StageTimes[1] = -1 },
			[]string{"completed_tasks[0].stage_times[1]"}},
		"finish after now":        {func(r *epoch.Request) { r.CompletedTasks[0].Finish = 200 }, []string{"completed_tasks[0].finish"}},
		"finish before start":     {func(r *epoch.Request) { r.CompletedTasks[0].Start = 60 }, []string{"completed_tasks[0].finish"}},
		"finished job still live": {func(r *epoch.Request) { r.FinishedJobs = []string{"job_1"} }, []string{"finished_jobs[0]"}},
		"finished job twice":      {func(r *epoch.Request) { r.FinishedJobs = []string{"x", "x"} }, []string{"finished_jobs[1]"}},
		"a NUL in an attempt id":  {func(r *epoch.Request) { r.Tasks[0].Attempt = "a\x00" }, []string{"tasks[0].attempt"}},
	} {
		t.Run(name, func(t *testing.T) {
			req := taskStateRequest()
			tc.change(&req)
			got := fields(epoch.Validate(req, epoch.Limits{}))
			if !slices.Equal(got, tc.want) {
				t.Errorf("problems at %q, want %q", got, tc.want)
			}
		})
	}
}

// TestTaskStateLimits: past the node or attempt limit, the request is
// refused with one problem and nothing else about the lists is checked.
func TestTaskStateLimits(t *testing.T) {
	req := taskStateRequest()
	req.Tasks = append(req.Tasks, req.Tasks...) // duplicates, not reported
	if got := fields(epoch.Validate(req, epoch.Limits{MaxTasks: 3})); !slices.Equal(got, []string{"tasks"}) {
		t.Errorf("over the task limit: %q", got)
	}
	if got := fields(epoch.Validate(taskStateRequest(), epoch.Limits{MaxNodes: 1})); !slices.Equal(got, []string{"nodes"}) {
		t.Errorf("over the node limit: %q", got)
	}
}
