package main

import "github.com/spf13/cobra"

func newMigrateCmd() *cobra.Command {
	return &cobra.Command{Use: "migrate", Short: "not implemented yet"}
}
