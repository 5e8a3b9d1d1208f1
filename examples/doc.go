// Package examples holds the runnable example tasks (embedded, so the demo
// needs nothing but the binary), the built-in scripted agent, and the demo
// that runs them under Vanilla and Counter-Edit.
package examples
