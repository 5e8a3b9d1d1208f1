// Package envlist reads KEY=VALUE environment lists, as exec.Cmd.Env
// holds them.
package envlist

import "strings"

// Value is the last value of key in env (the one a process would see),
// or "".
func Value(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if after, ok := strings.CutPrefix(kv, key+"="); ok {
			v = after
		}
	}
	return v
}
