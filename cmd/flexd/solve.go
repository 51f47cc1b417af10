package main

import "github.com/spf13/cobra"

func newSolveCmd() *cobra.Command {
	return &cobra.Command{Use: "solve", Short: "not implemented yet"}
}
