package stats

import (
	"math"
	"testing"
)

// TestBootstrapMeanConstant: values all the same are summed once, not
// drawn, and give the bits drawing them gives (0.2 is not a sum that
// comes out exact, so the order of the additions shows).
func TestBootstrapMeanConstant(t *testing.T) {
	c := Config{Resamples: 500, Seed: 3}
	for _, v := range []float64{0, 1, 0.2, 0.7, -0.4} {
		values := make([]float64, 3337)
		for i := range values {
			values[i] = v
		}
		got, want := BootstrapMean(values, c), Bootstrap(len(values), MeanOf(values), c)
		if math.Float64bits(got.Lo) != math.Float64bits(want.Lo) || math.Float64bits(got.Hi) != math.Float64bits(want.Hi) {
			t.Errorf("%v: BootstrapMean %v, drawn %v", v, got, want)
		}
	}
}

// TestMemo: the memo's interval is BootstrapMean's, for each values and
// config apart (a value one bit off, another seed, are other intervals).
func TestMemo(t *testing.T) {
	m := NewMemo()
	a := []float64{0, 0.2, 1, 0.4, 1, 0.8}
	b := append([]float64(nil), a...)
	b[3] = math.Nextafter(b[3], 1)
	for _, c := range []Config{{Resamples: 400, Seed: 1}, {Resamples: 400, Seed: 2}} {
		for _, v := range [][]float64{a, b, a} {
			if got, want := m.BootstrapMean(v, c), BootstrapMean(v, c); got != want {
				t.Errorf("seed %d, %v: memo %v, BootstrapMean %v", c.Seed, v, got, want)
			}
		}
	}
	if len(m.m) != 4 {
		t.Errorf("the memo holds %d intervals, want 4 (two values × two seeds)", len(m.m))
	}
}
