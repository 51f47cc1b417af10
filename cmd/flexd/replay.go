package main

import "github.com/spf13/cobra"

func newReplayCmd() *cobra.Command {
	return &cobra.Command{Use: "replay", Short: "not implemented yet"}
}
