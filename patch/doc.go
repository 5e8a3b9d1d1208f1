// Package patch parses git unified diffs and applies them in process: exact
// at the recorded position, then the nearest unique exact match, then a
// context-anchored match that tolerates whitespace-only context changes and
// reports ambiguity. It never fuzzes blindly, never leaves .orig/.rej files,
// preserves line endings, the final newline and the file mode, and writes
// atomically: a patch that does not fully apply leaves every file untouched.
package patch
