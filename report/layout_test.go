package report

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// layoutWidth is the window the layout is checked at: a laptop's.
const layoutWidth = 1400

// measure runs in the page once it is laid out and writes what is wrong
// with the layout into the DOM, as JSON, for --dump-dom to carry out: an
// element wider than the page or than the box holding it (a table behind
// a horizontal scroll), a header wrapped past three lines, a chart's
// legend entry outside its chart or drawn over another entry.
const measure = `<script>
(function () {
  var faults = [];
  var page = document.documentElement.clientWidth;
  function name(e) {
    var n = e.tagName.toLowerCase();
    if (e.id) n += "#" + e.id;
    var c = e.getAttribute("class");
    if (c) n += "." + c.split(" ").join(".");
    return n + (e.textContent ? " \"" + e.textContent.trim().slice(0, 40) + "\"" : "");
  }
  if (document.documentElement.scrollWidth > page) {
    faults.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " px wide in a " + page + " px window");
  }
  document.querySelectorAll("body *").forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) return;
    var pr = e.parentElement.getBoundingClientRect();
    var out = function (b) { return b.right > page + 0.5 || b.left < -0.5; };
    if (out(r) && (e.parentElement === document.body || !out(pr))) { // the outermost only
      faults.push(name(e) + " spans " + Math.round(r.left) + " to " + Math.round(r.right) + " px of a " + page + " px page");
    }
    var s = getComputedStyle(e);
    if ((s.overflowX === "auto" || s.overflowX === "scroll") && e.scrollWidth > e.clientWidth + 1) {
      faults.push(name(e) + " hides " + (e.scrollWidth - e.clientWidth) + " px behind a horizontal scroll");
    }
  });
  document.querySelectorAll("table").forEach(function (t) {
    var p = t.parentElement, ps = getComputedStyle(p);
    var room = p.clientWidth - parseFloat(ps.paddingLeft) - parseFloat(ps.paddingRight);
    if (t.getBoundingClientRect().width > room + 0.5) {
      faults.push(name(t).slice(0, 60) + " is " + Math.round(t.getBoundingClientRect().width) + " px wide in " + Math.round(room) + " px");
    }
  });
  document.querySelectorAll("th").forEach(function (th) {
    // the lines its words are set on, not the row's height
    var range = document.createRange();
    range.selectNodeContents(th);
    var tops = {};
    Array.prototype.forEach.call(range.getClientRects(), function (q) { if (q.width > 0) tops[Math.round(q.top)] = true; });
    var lines = Object.keys(tops).length;
    if (lines > 3) faults.push(name(th) + " wraps onto " + lines + " lines");
  });
  document.querySelectorAll("figure.chart").forEach(function (fig) {
    var box = fig.getBoundingClientRect();
    var keys = Array.prototype.slice.call(fig.querySelectorAll("text.legend, .legend li"));
    keys.forEach(function (k, i) {
      var r = k.getBoundingClientRect();
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || r.top < box.top - 0.5 || r.bottom > box.bottom + 0.5) {
        faults.push(fig.id + ": legend " + name(k) + " is cut by its chart (" + Math.round(r.left) + "-" + Math.round(r.right) + " in " + Math.round(box.left) + "-" + Math.round(box.right) + ")");
      }
      var svg = k.closest("svg");
      if (svg) {
        var sb = svg.getBoundingClientRect();
        if (r.left < sb.left - 0.5 || r.right > sb.right + 0.5) {
          faults.push(fig.id + ": legend " + name(k) + " is cut by its drawing");
        }
      }
      keys.slice(i + 1).forEach(function (o) {
        var q = o.getBoundingClientRect();
        if (r.left < q.right - 0.5 && q.left < r.right - 0.5 && r.top < q.bottom - 0.5 && q.top < r.bottom - 0.5) {
          faults.push(fig.id + ": legends " + name(k) + " and " + name(o) + " overlap");
        }
      });
    });
  });
  var out = document.createElement("pre");
  out.id = "layout-faults";
  out.textContent = JSON.stringify(faults);
  document.body.appendChild(out);
})();
</script>`

// checkLayout opens the report in Chromium at layoutWidth and fails on
// every fault measure finds; it keeps a screenshot for a person to look
// at.
func checkLayout(t *testing.T, page string) {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probe := filepath.Join(filepath.Dir(page), "layout-probe.html")
	src := strings.Replace(string(b), "</body>", measure+"</body>", 1)
	if err := os.WriteFile(probe, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	probe, _ = filepath.Abs(probe)
	dom := string(browse(t, probe, "--window-size=1400,1000", "--dump-dom"))
	raw := section(dom, `<pre id="layout-faults">`, "</pre>")
	raw = html.UnescapeString(strings.TrimPrefix(raw, `<pre id="layout-faults">`))
	var faults []string
	if err := json.Unmarshal([]byte(raw), &faults); err != nil {
		t.Fatalf("the layout's measure did not run: %v %q", err, raw)
	}
	for _, f := range faults {
		t.Errorf("at %d px: %s", layoutWidth, f)
	}
	shot := filepath.Join(os.TempDir(), "swetouch-report-"+strings.ReplaceAll(t.Name(), "/", "-")+".png")
	browse(t, page, "--window-size=1400,2400", "--screenshot="+shot)
	t.Logf("the report at %d px: %s", layoutWidth, shot)
}
