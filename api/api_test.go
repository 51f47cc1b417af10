package api_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/flexd/flexd/api"
)

// TestSpecIsFresh regenerates the spec from the annotations into a
// temporary file and fails when the committed api/openapi.yaml differs:
// the annotations changed without `go generate ./api/...`.
func TestSpecIsFresh(t *testing.T) {
	out := filepath.Join(t.TempDir(), "openapi.yaml")
	cmd := exec.Command("go", "run", "./internal/gen", "-httpapi", "../httpapi", "-out", out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("regenerating: %v\n%s", err, msg)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	committed, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Errorf("api/openapi.yaml is stale: run `go generate ./api/...` and commit the result (fresh %d bytes, committed %d)", len(fresh), len(committed))
	}
	if !bytes.Equal(api.Spec, committed) {
		t.Errorf("embedded Spec differs from openapi.yaml on disk")
	}
}
