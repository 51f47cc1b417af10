package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// helpExitCodes reads the exit statuses `flexd --help` documents, by the
// first word of each line's meaning (success, failure, usage, migrations).
func helpExitCodes(t *testing.T) map[string]int {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run([]string{"--help"}, &out, &errOut); code != 0 {
		t.Fatalf("flexd --help: exit %d, %s", code, errOut.String())
	}
	_, section, ok := strings.Cut(out.String(), "Exit status:\n")
	if !ok {
		t.Fatalf("flexd --help has no exit status section:\n%s", out.String())
	}
	codes := map[string]int{}
	re := regexp.MustCompile(`^  (\d+)  (\w+)`)
	for _, line := range strings.Split(section, "\n") {
		m := re.FindStringSubmatch(line)
		if m == nil {
			break
		}
		n, _ := strconv.Atoi(m[1])
		codes[m[2]] = n
	}
	for _, k := range []string{"success", "failure", "usage", "migrations"} {
		if _, ok := codes[k]; !ok {
			t.Fatalf("flexd --help documents no %q exit status: %v", k, codes)
		}
	}
	return codes
}

// TestExitCodes is issue 18's table of exit statuses: typos of commands at
// every level, unknown flags and bad values, bad input, failures and
// successes each exit with the status `flexd --help` documents for them,
// and a typo's message carries cobra's suggestion.
func TestExitCodes(t *testing.T) {
	codes := helpExitCodes(t)
	if codes["success"] != 0 || codes["failure"] != 1 || codes["usage"] != 2 || codes["migrations"] != 3 {
		t.Errorf("documented exit statuses %v, want success 0, failure 1, usage 2, migrations 3", codes)
	}
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, err := os.ReadFile("../../examples/solve.json")
	if err != nil {
		t.Fatal(err)
	}
	goodLine := string(bytes.Join(bytes.Fields(good), []byte(" ")))
	mixed := write("mixed.jsonl", goodLine+"\n"+`{"slots": 0, "jobs": []}`+"\n"+goodLine+"\n"+"not json\n")
	allGood := write("good.jsonl", goodLine+"\n"+goodLine+"\n")
	badReq := write("bad.json", `{"slots": 0, "jobs": []}`)
	t.Setenv("FLEXD_DATABASE_URL", "")
	unreachable := "postgres://flexd@127.0.0.1:1/flexd?sslmode=disable&connect_timeout=2"

	for _, c := range []struct {
		name   string
		args   []string
		want   string // a key of codes
		stderr string // in the message, when set
	}{
		{"version command", []string{"version"}, "success", ""},
		{"--version", []string{"--version"}, "success", ""},
		{"help of a nested command", []string{"help", "plan", "slot-config"}, "success", ""},
		{"a group alone prints its help", []string{"plan"}, "success", ""},
		{"solve a file", []string{"solve", "../../examples/solve.json"}, "success", ""},
		{"plan slot-config", []string{"plan", "slot-config", "../../examples/plan.json"}, "success", ""},
		{"solve --jsonl, every line answered", []string{"solve", "--jsonl", allGood}, "success", ""},
		{"solve --jsonl --allow-failures", []string{"solve", "--jsonl", "--allow-failures", mixed}, "success", ""},
		{"solve --jsonl with refused lines", []string{"solve", "--jsonl", mixed}, "failure", "on line(s) 2, 4"},
		{"migrate status, database unreachable", []string{"migrate", "status", "--database-url", unreachable}, "failure", ""},
		{"unknown top-level command", []string{"serv"}, "usage", "Did you mean this?\n\tserve"},
		{"unknown nested command", []string{"plan", "slotconfig"}, "usage", "Did you mean this?\n\tslot-config"},
		{"unknown simulate command", []string{"simulate", "rn"}, "usage", "Did you mean this?\n\trun"},
		{"unknown token command", []string{"token", "revok"}, "usage", "revoke"},
		{"unknown migrate command", []string{"migrate", "stats"}, "usage", "status"},
		{"unknown completion shell", []string{"completion", "bsh"}, "usage", "bash"},
		{"help of an unknown topic", []string{"help", "plann"}, "usage", "plan"},
		{"help of an unknown nested topic", []string{"help", "plan", "slotconfig"}, "usage", "slot-config"},
		{"unknown flag", []string{"serve", "--adr", "127.0.0.1:0"}, "usage", "--adr"},
		{"negative --max-deciding", []string{"serve", "--max-deciding", "-1"}, "usage", "--max-deciding"},
		{"unknown global flag", []string{"--verbose", "version"}, "usage", "--verbose"},
		{"bad flag value", []string{"simulate", "run", "--jobs", "many"}, "usage", "--jobs"},
		{"bad --log-level", []string{"--log-level", "loud", "version"}, "usage", "--log-level"},
		{"bad --log-format", []string{"--log-format", "xml", "version"}, "usage", "--log-format"},
		{"bad --effort value", []string{"solve", "--effort", "abc"}, "usage", "--effort"},
		{"a refused request", []string{"solve", badReq}, "usage", "refused"},
		{"an unreadable input", []string{"replay", "--log", filepath.Join(dir, "absent.jsonl")}, "usage", "absent.jsonl"},
		{"token create without a database", []string{"token", "create", "--cluster", "c1"}, "usage", "--database-url"},
		{"extra argument", []string{"version", "now"}, "usage", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			got := run(c.args, &out, &errOut)
			if want := codes[c.want]; got != want {
				t.Errorf("flexd %s: exit %d, want %d (%s); stderr:\n%s", strings.Join(c.args, " "), got, want, c.want, errOut.String())
			}
			if c.stderr != "" && !strings.Contains(errOut.String(), c.stderr) {
				t.Errorf("flexd %s: stderr lacks %q:\n%s", strings.Join(c.args, " "), c.stderr, errOut.String())
			}
		})
	}
}

// TestExitCodePendingMigrations: migrate status on a schema behind the
// embedded migrations exits with the documented status for it (3), and 0
// once they are applied.
func TestExitCodePendingMigrations(t *testing.T) {
	codes := helpExitCodes(t)
	url := schemaURL(t)
	var out, errOut bytes.Buffer
	if got := run([]string{"migrate", "status", "--database-url", url}, &out, &errOut); got != codes["migrations"] {
		t.Errorf("migrate status before migrating: exit %d, want %d; %s", got, codes["migrations"], errOut.String())
	}
	if got := run([]string{"migrate", "up", "--database-url", url}, &out, &errOut); got != codes["success"] {
		t.Fatalf("migrate up: exit %d; %s", got, errOut.String())
	}
	if got := run([]string{"migrate", "status", "--database-url", url}, &out, &errOut); got != codes["success"] {
		t.Errorf("migrate status after migrating: exit %d; %s", got, errOut.String())
	}
}

// TestEnvEveryCommand: every flag of every command names its FLEXD_*
// variable in its help, the names follow the one rule of envName (no two
// commands outside serve, migrate and token share one), the variable sets
// the flag, and FLEXD_LOG, once replay's log file, is no one's.
func TestEnvEveryCommand(t *testing.T) {
	root := newRootCmd()
	seen := map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || f.Name == "version" {
				return
			}
			name := envName(c, f.Name)
			if !strings.Contains(f.Usage, "(env "+name+")") {
				t.Errorf("%s --%s: help %q does not name %s", c.CommandPath(), f.Name, f.Usage, name)
			}
			if name == "FLEXD_LOG" {
				t.Errorf("%s --%s uses FLEXD_LOG", c.CommandPath(), f.Name)
			}
			if prev, ok := seen[name]; ok && !sharedEnvCommands[strings.Fields(c.CommandPath() + " x")[1]] {
				t.Errorf("%s is both %s's and %s --%s's", name, prev, c.CommandPath(), f.Name)
			}
			seen[name] = c.CommandPath() + " --" + f.Name
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for name, want := range map[string]string{
		"FLEXD_REPLAY_LOG": "flexd replay --log", "FLEXD_SIMULATE_RUN_JOBS": "flexd simulate run --jobs",
		"FLEXD_SOLVE_EFFORT": "flexd solve --effort", "FLEXD_PLAN_SLOT_CONFIG_LOG_LEVEL": "",
		"FLEXD_DATABASE_URL": "flexd token revoke --database-url", "FLEXD_LOG_LEVEL": "flexd --log-level",
		"FLEXD_SHUTDOWN_DELAY": "flexd serve --shutdown-delay", "FLEXD_TOKEN_CACHE_TTL": "flexd serve --token-cache-ttl",
	} {
		if want == "" {
			if _, ok := seen[name]; ok {
				t.Errorf("%s exists; global flags are named by the flag alone", name)
			}
			continue
		}
		if _, ok := seen[name]; !ok {
			t.Errorf("no flag reads %s (want %s)", name, want)
		}
	}

	// The variables set the flags of simulate, solve and plan too: a bad
	// value is a usage error naming the variable.
	t.Setenv("FLEXD_SOLVE_EFFORT", "lots")
	var out, errOut bytes.Buffer
	if code := run([]string{"solve", "../../examples/solve.json"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "FLEXD_SOLVE_EFFORT") {
		t.Errorf("FLEXD_SOLVE_EFFORT=lots: exit %d, %s; want 2 naming the variable", code, errOut.String())
	}
	t.Setenv("FLEXD_SOLVE_EFFORT", "99")
	if code := run([]string{"solve", "../../examples/solve.json"}, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "--effort") {
		t.Errorf("FLEXD_SOLVE_EFFORT=99: exit %d, %s; want 2 naming --effort", code, errOut.String())
	}
	t.Setenv("FLEXD_SOLVE_EFFORT", "")
	os.Unsetenv("FLEXD_SOLVE_EFFORT")
	// FLEXD_LOG=debug no longer breaks replay (it was its log file).
	t.Setenv("FLEXD_LOG", "debug")
	errOut.Reset()
	if code := run([]string{"replay", "--log", "absent.jsonl"}, &out, &errOut); code != 2 || strings.Contains(errOut.String(), "open debug") {
		t.Errorf("FLEXD_LOG=debug: exit %d, %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "FLEXD_REPLAY_LOG") {
		t.Errorf("FLEXD_LOG set: no warning naming FLEXD_REPLAY_LOG:\n%s", errOut.String())
	}
}

// TestLogFlags: --log-level filters, --log-format picks the handler, and
// durations are written in seconds.
func TestLogFlags(t *testing.T) {
	var buf bytes.Buffer
	l, err := buildLogger(&buf, "warn", "json")
	if err != nil {
		t.Fatal(err)
	}
	l.Info("hidden")
	l.Warn("shown", "timeout", 1500*time.Millisecond)
	if got := buf.String(); strings.Contains(got, "hidden") || !strings.Contains(got, `"timeout":1.5`) {
		t.Errorf("json at warn: %s", got)
	}
	buf.Reset()
	l, err = buildLogger(&buf, "debug", "text")
	if err != nil {
		t.Fatal(err)
	}
	l.Debug("probe", "d", 2*time.Second)
	if got := buf.String(); !strings.Contains(got, "level=DEBUG") || !strings.Contains(got, "d=2") {
		t.Errorf("text at debug: %s", got)
	}
	for _, bad := range [][2]string{{"loud", "json"}, {"info", "xml"}} {
		var ue usageError
		if _, err := buildLogger(&buf, bad[0], bad[1]); !errors.As(err, &ue) {
			t.Errorf("buildLogger(%q, %q) = %v, want a usage error", bad[0], bad[1], err)
		}
	}
}
