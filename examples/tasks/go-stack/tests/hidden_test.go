package stack

import "testing"

func TestHiddenEmpty(t *testing.T) {
	var s Stack
	if v, ok := s.Pop(); v != 0 || ok {
		t.Fatalf("empty Pop = %d, %v; want 0, false", v, ok)
	}
	s.Push(7)
	s.Push(8)
	for _, want := range []int{8, 7} {
		if v, ok := s.Pop(); v != want || !ok {
			t.Fatalf("Pop = %d, %v; want %d", v, ok, want)
		}
	}
	if v, ok := s.Pop(); v != 0 || ok {
		t.Fatalf("Pop after draining = %d, %v", v, ok)
	}
}
