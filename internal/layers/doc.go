// Package layers holds only a test: that the leaf packages stay leaves.
package layers
