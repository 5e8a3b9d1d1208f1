package patch_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/swetouch/swetouch/patch"
)

// Apply lands each hunk where its context is, here three lines below where
// the diff says (the file gained a header since), and reports how; applied
// again, the hunk is found already there and nothing changes.
func ExampleApply() {
	dir, err := os.MkdirTemp("", "patch-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := "# pricing\n# (c) example\n\ndef apply_discount(price, percent):\n    return price * (1 - percent / 100)\n"
	if err := os.WriteFile(filepath.Join(dir, "pricing.py"), []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}

	diffs, err := patch.Parse(`--- a/pricing.py
+++ b/pricing.py
@@ -1,2 +1,3 @@
 def apply_discount(price, percent):
+    percent = min(max(percent, 0), 100)
     return price * (1 - percent / 100)
`)
	if err != nil {
		log.Fatal(err)
	}
	for range 2 {
		rep, err := patch.Apply(patch.Dir(dir), diffs)
		if err != nil {
			log.Fatal(err)
		}
		for _, h := range rep.Hunks {
			fmt.Printf("%s hunk %d: %s, lines %d-%d\n", h.File, h.Hunk, h.Method, h.Start, h.End)
		}
		fmt.Println("changed:", rep.Changed)
	}
	out, _ := os.ReadFile(filepath.Join(dir, "pricing.py"))
	fmt.Print(string(out))
	// Output:
	// pricing.py hunk 1: offset, lines 4-6
	// changed: [pricing.py]
	// pricing.py hunk 1: already-applied, lines 4-6
	// changed: []
	// # pricing
	// # (c) example
	//
	// def apply_discount(price, percent):
	//     percent = min(max(percent, 0), 100)
	//     return price * (1 - percent / 100)
}
