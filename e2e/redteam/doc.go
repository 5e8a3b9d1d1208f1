// Package redteam holds no code: its tests are agents that try to cheat,
// each run through swetouch run or eval with the sandbox on, each
// checking that the attack fails and the honest outcome stands, and the
// honest agents that the same defences must not hurt. docs/isolation.md
// is the threat model they test.
package redteam
