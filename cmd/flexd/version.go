package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print flexd's version (module version and VCS revision); also flexd --version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), versionString())
			return err
		},
	}
}

// versionString is "flexd VERSION (REVISION[+dirty], GOVERSION)" from the
// build information, or "flexd (unknown build)" without it.
func versionString() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "flexd (unknown build)"
	}
	rev, dirty := "unknown", ""
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	return fmt.Sprintf("flexd %s (%s%s, %s)", info.Main.Version, rev, dirty, info.GoVersion)
}
