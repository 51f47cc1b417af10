package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flexd/flexd/sim/tasksim"
)

// TestSimulateTasks: `simulate tasks --format json` prints one row per
// detector and measured job; --log writes an epoch log `flexd replay`
// reads; --plot a PNG.
func TestSimulateTasks(t *testing.T) {
	dir := t.TempDir()
	logPath, plotPath := filepath.Join(dir, "epochs.jsonl"), filepath.Join(dir, "tasks.png")
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{"simulate", "tasks", "--scenario", "esamr", "--detectors", "esamr", "--format", "json",
		"--log", logPath, "--plot", plotPath})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var rows []tasksim.ESAMRRow
	if err := json.Unmarshal(out.Bytes(), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(rows) != 2 || rows[0].Detector != "esamr" || rows[0].Recall != 1 {
		t.Errorf("rows %+v, want esamr on two jobs finding every injected straggler", rows)
	}
	png, err := os.ReadFile(plotPath)
	if err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("--plot wrote no PNG: %v", err)
	}
	root = newRootCmd()
	var rep bytes.Buffer
	root.SetOut(&rep)
	root.SetArgs([]string{"replay", "--log", logPath, "--policies", "fair"})
	if err := root.Execute(); err != nil {
		t.Fatalf("replaying the simulator's log: %v", err)
	}
	if !strings.Contains(rep.String(), "fair") {
		t.Errorf("replay report without the policy:\n%s", rep.String())
	}
}

// TestSimulateTasksUsage: unknown scenarios, detectors, formats and bases
// are usage errors naming the flag, before any run.
func TestSimulateTasksUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--scenario", "late"}, {"--detectors", "magic"}, {"--format", "csv"}, {"--esamr-basis", "x"}, {"--seeds", "0"},
		{"--plot", "x.gif"}, {"--detectors", "late,esamr", "--scenario", "sepb"}, {"--detectors", "none", "--scenario", "sepb"}, {"--straggler-factor", "0.5"},
	} {
		root := newRootCmd()
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append([]string{"simulate", "tasks"}, args...))
		err := root.Execute()
		var ue usageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "--")) {
			t.Errorf("%v: error %v, want a usage error naming the flag", args, err)
		}
	}
}
