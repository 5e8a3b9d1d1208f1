// Package stack is a last-in-first-out stack of ints.
package stack

// Stack is a LIFO of ints. The zero value is an empty stack.
type Stack struct{ items []int }

// Push adds v on top.
func (s *Stack) Push(v int) { s.items = append(s.items, v) }

// Pop removes and returns the top; ok is false when the stack is empty.
func (s *Stack) Pop() (v int, ok bool) {
	v = s.items[len(s.items)-1]
	s.items = s.items[:len(s.items)-1]
	return v, true
}

// Len is the number of items.
func (s *Stack) Len() int { return len(s.items) }
