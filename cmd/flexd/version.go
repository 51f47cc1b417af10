package main

import (
	"fmt"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print flexd's version (module version and VCS revision)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, ok := debug.ReadBuildInfo()
			if !ok {
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "flexd (unknown build)")
				return err
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
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "flexd %s (%s%s, %s)\n", info.Main.Version, rev, dirty, info.GoVersion)
			return err
		},
	}
}
