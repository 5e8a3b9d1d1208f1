package shell

import "testing"

// vimCases are TestVim's rows (and FuzzClassify's seeds).
var vimCases = []struct{ cmd, want string }{
	{`vim -es -c '%p' -c 'q!' a.py`, "read a.py"},
	{`vim -es -c '10,20p' -c 'q!' a.py`, "read a.py:10-20"},
	{`ex -sc '5,8p|q' a.py`, "read a.py:5-8"},
	{`vim -es -c '3p' -c '7,9nu' -c 'qa!' a.py`, "read a.py:3-3; read a.py:7-9"},
	{`vim -R a.py`, "read a.py"},
	{`view a.py`, "read a.py"},
	{`vim -es -c '%s/a/b/g' -c 'wq' a.py`, "edit a.py"},
	{`vim -es -c '%p' -c 'w' a.py`, "edit a.py"},
	{`vim -s keys.txt a.py`, "edit a.py"},
	{`vim -e -s -c '1,4p' -c 'q' a.py`, "read a.py:1-4"},
	{`vim +10 a.py`, "edit a.py"},
	{`vim a.py`, "edit a.py"},
	{`ex -sc '%d|x' a.py`, "edit a.py"},
}

// TestVim: vi, vim, nvim and ex run with Ex commands that only print
// and quit read the file (the lines a range names); any other command,
// or an interactive session, may write it.
func TestVim(t *testing.T) {
	for _, tt := range vimCases {
		if got := render(Classify(tt.cmd)); got != tt.want {
			t.Errorf("%s\n got %s\nwant %s", tt.cmd, got, tt.want)
		}
	}
}
