package stats

import (
	"math"
	"sync"
)

// Memo keeps the intervals BootstrapMean drew, by their values (bit for
// bit) and configuration, so one set of per-task values bootstrapped
// again (a condition's Δ and its paired test against vanilla, two cells
// whose tasks all came out the same) costs a look-up: the same values
// and seed give the same interval. Safe for concurrent use.
type Memo struct {
	mu sync.Mutex
	m  map[memoKey]Interval
}

type memoKey struct {
	c      Config
	values string // the values' bits
}

// NewMemo is an empty Memo.
func NewMemo() *Memo { return &Memo{m: map[memoKey]Interval{}} }

// BootstrapMean is BootstrapMean(values, c), drawn once per values and c.
func (m *Memo) BootstrapMean(values []float64, c Config) Interval {
	c = c.OrDefault()
	b := make([]byte, 0, 8*len(values))
	for _, v := range values {
		u := math.Float64bits(v)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24), byte(u>>32), byte(u>>40), byte(u>>48), byte(u>>56))
	}
	k := memoKey{c, string(b)}
	m.mu.Lock()
	iv, ok := m.m[k]
	m.mu.Unlock()
	if ok {
		return iv
	}
	iv = BootstrapMean(values, c)
	m.mu.Lock()
	m.m[k] = iv
	m.mu.Unlock()
	return iv
}
