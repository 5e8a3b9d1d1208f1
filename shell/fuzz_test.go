package shell

import "testing"

// FuzzClassify: no command, with or without output, panics the classifier.
func FuzzClassify(f *testing.F) {
	for _, s := range []string{"nl -ba a.py | sed -n '10,20p'", "sed -i -e 's/a/b/' f", "cat <<EOF > x\nhi\nEOF", "bash -c 'cd x && cat y'", "awk 'NR>=1 && NR<=2' f", "sed -n '20,10p;$p' f", "git stash pop", "'unterminated"} {
		f.Add(s, "     1\tx\n12:y\nsrc/a.py:3:z\n")
	}
	f.Fuzz(func(t *testing.T, cmd, out string) {
		s := NewSession(WithRoot("/repo"))
		s.Classify(cmd)
		r := s.ClassifyOutput(cmd, Observation{Text: out})
		for _, sc := range r.Scopes("read") {
			if sc.Precision == "line" && (sc.Start < 1 || sc.End < sc.Start) {
				t.Fatalf("bad scope %+v", sc)
			}
		}
	})
}
