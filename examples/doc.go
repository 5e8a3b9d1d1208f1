// Package examples holds the runnable example tasks, conversations and
// the scripted agents' plans, embedded in the binary (examples.tar.gz), so
// the demo needs nothing but the binary. It is data and its archive only:
// the demo that runs them is package demo, the scripted agents
// agents/scripted.
package examples
