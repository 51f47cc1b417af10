package main

import "github.com/spf13/cobra"

func newSimulateCmd() *cobra.Command {
	return &cobra.Command{Use: "simulate", Short: "not implemented yet"}
}
