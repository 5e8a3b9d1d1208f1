// Package shim is the shell shim: a bash-compatible entry point that runs
// the real shell and reports each `-c` command to the session hub. It is
// reached as `swetouch shell -c CMD` or, through a directory of links
// placed first on PATH, as `bash` and `sh`. Without a session, and for any
// invocation other than -c, it runs the real shell untouched.
package shim
