package stats

import (
	"fmt"
	"testing"
)

// TestSpearman against values worked by hand: with no ties ρ = 1 −
// 6Σd²/(n(n²−1)); with ties, Pearson's r of the mid-ranks.
func TestSpearman(t *testing.T) {
	for _, c := range []struct {
		name string
		x, y []float64
		want string
	}{
		{"monotone", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 400}, "1.0000"},
		{"reversed", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, "-1.0000"},
		// ranks x 1..5, y 2 1 4 3 5: Σd² = 4, ρ = 1 − 24/120 = 0.8
		{"swaps", []float64{1, 2, 3, 4, 5}, []float64{2, 1, 4, 3, 5}, "0.8000"},
		// x ranks 1 2.5 2.5 4, y ranks 1 2 3 4, both means 2.5:
		// Σdx·dy = 2.25+0+0+2.25 = 4.5, Σdx² = 4.5, Σdy² = 5:
		// 4.5/√22.5 = 0.9487
		{"tie", []float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, "0.9487"},
		// the project page's nine models: Fig. 4c's revision rates
		// against the Verified table's Δ. Ranks (9 8 7 3 1 5 4 6 2) and
		// (8 9 7 2 4 6 1 5 3): Σd² = 24, ρ = 1 − 144/720 = 0.8
		{"paper", []float64{79.3, 52.6, 49.1, 18.0, 15.4, 29.4, 24.5, 39.0, 15.9},
			[]float64{-1.8, -1.3, -4.3, -13.8, -9.5, -4.8, -16.5, -6.0, -11.0}, "0.8000"},
	} {
		rho, ok := Spearman(c.x, c.y)
		if got := fmt.Sprintf("%.4f", rho); !ok || got != c.want {
			t.Errorf("%s: ρ %s (ok %v), want %s", c.name, got, ok, c.want)
		}
	}
	for _, c := range [][2][]float64{{{1, 2}, {1, 2}}, {{1, 1, 1}, {1, 2, 3}}, {{1, 2, 3}, {1, 2}}} {
		if _, ok := Spearman(c[0], c[1]); ok {
			t.Errorf("Spearman(%v, %v) defined; want undefined", c[0], c[1])
		}
	}
}
