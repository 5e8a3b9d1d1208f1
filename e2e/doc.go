// Package e2e holds the end-to-end tests: the real agents (from npm)
// against the scripted model server, the demo, the examples' plans, and
// (in e2e/redteam) the agents that try to cheat with the honest ones the
// defences must not hurt. Each starts the real swetouch binary.
package e2e
