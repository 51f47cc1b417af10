package main

import "github.com/spf13/cobra"

func newTokenCmd() *cobra.Command {
	return &cobra.Command{Use: "token", Short: "not implemented yet"}
}
