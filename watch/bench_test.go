package watch

import (
	"context"
	"testing"
)

// BenchmarkSync is one barrier with nothing changed: what the hub pays
// twice for every command (at its begin and at its end).
func BenchmarkSync(b *testing.B) {
	w, err := New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	for b.Loop() {
		if _, err := w.Sync(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
