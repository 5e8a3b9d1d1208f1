package stack

import "testing"

func TestPushPop(t *testing.T) {
	var s Stack
	s.Push(1)
	s.Push(2)
	if v, ok := s.Pop(); v != 2 || !ok {
		t.Fatalf("Pop = %d, %v", v, ok)
	}
}
