// Package archtest keeps the architecture of docs/design.md honest: imports
// point down the package table and never back up, and the pure computation
// packages import nothing that does I/O or reads the clock.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/flexd/flexd"

// pure are the packages design.md requires to be pure computation.
var pure = []string{"penalty", "solver", "solver/mps", "solver/rap", "solver/fairshare", "ratio", "estimate", "epoch", "plan"}

// impure are imports a pure package must not have: I/O, the clock,
// logging, the network, global randomness.
var impure = []string{"os", "io", "io/fs", "net", "net/http", "time", "log", "log/slog", "math/rand", "database/sql", "bufio"}

// layers lists, for each package, the flexd packages it may import. A
// package missing here may import nothing of flexd's.
var layers = map[string][]string{
	"penalty":          {},
	"solver/mps":       {},
	"solver/rap":       {},
	"solver/fairshare": {"solver/mps"},
	"solver":           {"penalty", "solver/mps", "solver/rap", "solver/fairshare"},
	"ratio":            {},
	"plan":             {"ratio"},
	"estimate":         {},
	"epoch":            {"penalty", "solver", "solver/mps", "ratio", "estimate"},
	"store":            {},
	"store/memory":     {"store"},
	"store/postgres":   {"store", "migrations"},
	"store/spool":      {"store"},
	"store/resilient":  {"store", "store/spool"},
	"migrations":       {},
	// The Go client stands alone: generated from api/openapi.yaml, it
	// shares no type with the server it talks to.
	"client": {},
}

func imports(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", `{{join .Imports "\n"}}`, module+"/"+pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestPurePackagesDoNoIO(t *testing.T) {
	for _, pkg := range pure {
		for _, imp := range imports(t, pkg) {
			for _, bad := range impure {
				if imp == bad {
					t.Errorf("%s imports %s: pure computation must not do I/O, read the clock or log", pkg, imp)
				}
			}
		}
	}
}

func TestImportsPointDown(t *testing.T) {
	for pkg, allowed := range layers {
		ok := map[string]bool{}
		for _, a := range allowed {
			ok[module+"/"+a] = true
		}
		for _, imp := range imports(t, pkg) {
			if strings.HasPrefix(imp, module+"/") && !ok[imp] {
				t.Errorf("%s imports %s, which design.md's package table does not allow", pkg, strings.TrimPrefix(imp, module+"/"))
			}
		}
	}
}
