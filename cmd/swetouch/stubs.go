package main

import "github.com/spf13/cobra"

func patchCmd() *cobra.Command  { return &cobra.Command{Use: "patch"} }
func policyCmd() *cobra.Command { return &cobra.Command{Use: "policy"} }
