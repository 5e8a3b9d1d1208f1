package swebench

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Spec is how SWE-bench evaluates one repository at one version: the test
// command its eval script runs (the test files appended), the commands it
// runs before (environment for the tests), the repository's install that
// it runs again in the image's conda environment, and the log's parser.
type Spec struct {
	TestCmd string
	Eval    []string
	Install string
	Parser  Parser
	// ParserName is the official parser's name, for the differential test
	// and the docs.
	ParserName string
}

type specRow struct {
	repo     string
	versions []string
	testCmd  string
	eval     []string
	install  string
}

// specRows are SWE-bench's MAP_REPO_VERSION_TO_SPECS for the repositories
// of SWE-bench Verified (swebench 4.1.0): test_cmd, eval_commands and
// install by version.
var specRows = []specRow{
	{"astropy/astropy", []string{"3.0", "3.1", "3.2", "4.1", "4.2", "4.3", "5.0", "5.1", "5.2", "v5.3"}, "pytest -rA", nil, "python -m pip install -e .[test] --verbose"},
	{"astropy/astropy", []string{"0.1", "0.2", "0.3", "0.4", "1.1", "1.2", "1.3"}, "pytest -rA -vv -o console_output_style=classic --tb=no", nil, "python -m pip install -e .[test] --verbose"},
	{"django/django", []string{"1.7", "1.8", "1.10", "1.11", "2.0", "2.1", "2.2"}, "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", []string{"export LANG=en_US.UTF-8", "export LC_ALL=en_US.UTF-8", "export PYTHONIOENCODING=utf8", "export LANGUAGE=en_US:en"}, "python setup.py install"},
	{"django/django", []string{"1.9"}, "./tests/runtests.py --verbosity 2", []string{"export LANG=en_US.UTF-8", "export LC_ALL=en_US.UTF-8", "export PYTHONIOENCODING=utf8", "export LANGUAGE=en_US:en"}, "python setup.py install"},
	{"django/django", []string{"1.4", "1.5", "1.6"}, "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", nil, "python setup.py install"},
	{"django/django", []string{"3.0", "3.1", "3.2"}, "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", []string{"sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen", "export LANG=en_US.UTF-8", "export LANGUAGE=en_US:en", "export LC_ALL=en_US.UTF-8"}, "python -m pip install -e ."},
	{"django/django", []string{"4.0", "4.1", "4.2", "5.0", "5.1", "5.2"}, "./tests/runtests.py --verbosity 2 --settings=test_sqlite --parallel 1", nil, "python -m pip install -e ."},
	{"matplotlib/matplotlib", []string{"3.5", "3.6", "3.7", "3.1", "3.2", "3.3", "3.4", "3.0"}, "pytest -rA", nil, "python -m pip install -e ."},
	{"matplotlib/matplotlib", []string{"3.8", "3.9"}, "pytest -rA", nil, "python -m pip install --no-build-isolation -e \".[dev]\""},
	{"matplotlib/matplotlib", []string{"2.0", "2.1", "2.2", "1.0", "1.1", "1.2", "1.3", "1.4", "1.5"}, "pytest -rA", nil, "python setup.py build; python setup.py install"},
	{"mwaskom/seaborn", []string{"0.11"}, "pytest --no-header -rA", nil, "python -m pip install -e ."},
	{"mwaskom/seaborn", []string{"0.12", "0.13", "0.14"}, "pytest --no-header -rA", nil, "python -m pip install -e .[dev]"},
	{"pallets/flask", []string{"2.0", "2.1", "2.2", "2.3", "3.0", "3.1"}, "pytest -rA", nil, "python -m pip install -e ."},
	{"psf/requests", []string{"0.7", "0.8", "0.9", "0.11", "0.13", "0.14", "1.1", "1.2", "2.0", "2.2", "2.3", "2.4", "2.5", "2.7", "2.8", "2.9", "2.10", "2.11", "2.12", "2.17", "2.18", "2.19", "2.22", "2.26", "2.25", "2.27", "2.31", "3.0"}, "pytest -rA", nil, "python -m pip install ."},
	{"pydata/xarray", []string{"0.12", "0.18", "0.19", "0.20", "2022.03", "2022.06", "2022.09", "2023.07", "2024.05"}, "pytest -rA", nil, "python -m pip install -e ."},
	{"pylint-dev/pylint", []string{"2.10", "2.11", "2.13", "2.14", "2.15", "2.16", "2.17", "2.8", "2.9", "3.0", "3.1", "3.2", "3.3", "4.0"}, "pytest -rA", nil, "python -m pip install -e ."},
	{"pytest-dev/pytest", []string{"4.4", "4.5", "4.6", "5.0", "5.1", "5.2", "5.3", "5.4", "6.0", "6.2", "6.3", "7.0", "7.1", "7.2", "7.4", "8.0", "8.1", "8.2", "8.3", "8.4"}, "pytest -rA", nil, "python -m pip install -e ."},
	{"scikit-learn/scikit-learn", []string{"0.20", "0.21", "0.22", "1.3", "1.4", "1.5", "1.6"}, "pytest -rA", nil, "python -m pip install -v --no-use-pep517 --no-build-isolation -e ."},
	{"sphinx-doc/sphinx", []string{"1.5", "1.6", "1.7", "1.8", "2.0", "2.1", "2.2", "2.3", "2.4", "3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "4.0", "4.1", "4.2", "4.3", "4.4", "4.5", "5.0", "5.1", "5.2", "5.3", "6.0", "6.2", "7.0", "7.1", "7.2", "7.3", "7.4", "8.0", "8.1"}, "tox --current-env -epy39 -v --", nil, "python -m pip install -e .[test]"},
	{"sympy/sympy", []string{"0.7", "1.0", "1.1", "1.10", "1.11", "1.12", "1.2", "1.4", "1.5", "1.6", "1.7", "1.8", "1.9", "1.13", "1.14"}, "PYTHONWARNINGS='ignore::UserWarning,ignore::SyntaxWarning' bin/test -C --verbose", nil, "python -m pip install -e ."},
}

// parsers are SWE-bench's MAP_REPO_TO_PARSER for the same repositories.
var parsers = map[string]struct {
	name string
	p    Parser
}{
	"astropy/astropy":           {"parse_log_astropy", parsePytestV2},
	"django/django":             {"parse_log_django", parseDjango},
	"matplotlib/matplotlib":     {"parse_log_matplotlib", parseMatplotlib},
	"mwaskom/seaborn":           {"parse_log_seaborn", parseSeaborn},
	"pallets/flask":             {"parse_log_flask", parsePytest},
	"psf/requests":              {"parse_log_requests", parsePytestOptions},
	"pydata/xarray":             {"parse_log_xarray", parsePytest},
	"pylint-dev/pylint":         {"parse_log_pylint", parsePytestOptions},
	"pytest-dev/pytest":         {"parse_log_pytest", parsePytest},
	"scikit-learn/scikit-learn": {"parse_log_scikit", parsePytestV2},
	"sphinx-doc/sphinx":         {"parse_log_sphinx", parsePytestV2},
	"sympy/sympy":               {"parse_log_sympy", parseSympy},
}

// ParserFor is the log parser SWE-bench uses for repo.
func ParserFor(repo string) (Parser, string, error) {
	p, ok := parsers[repo]
	if !ok {
		return nil, "", fmt.Errorf("no log parser for repository %q (swetouch knows %s)", repo, strings.Join(Repos(), ", "))
	}
	return p.p, p.name, nil
}

// Repos are the repositories swetouch can evaluate, sorted.
func Repos() []string {
	var rs []string
	for r := range parsers {
		rs = append(rs, r)
	}
	slices.Sort(rs)
	return rs
}

// SpecFor is SWE-bench's evaluation of repo at version.
func SpecFor(repo, version string) (Spec, error) {
	p, name, err := ParserFor(repo)
	if err != nil {
		return Spec{}, err
	}
	var known []string
	for _, r := range specRows {
		if r.repo != repo {
			continue
		}
		if slices.Contains(r.versions, version) {
			return Spec{TestCmd: r.testCmd, Eval: r.eval, Install: r.install, Parser: p, ParserName: name}, nil
		}
		known = append(known, r.versions...)
	}
	return Spec{}, fmt.Errorf("repository %s has no version %q in SWE-bench's specifications (known: %s)", repo, version, strings.Join(known, ", "))
}

// nonTestExts are the endings of files a test patch touches that are not
// test files to run (SWE-bench's NON_TEST_EXTS; "csv" has no dot there).
var nonTestExts = []string{".json", ".png", "csv", ".txt", ".md", ".jpg", ".jpeg", ".pkl", ".yml", ".yaml", ".toml"}

var directiveRe = regexp.MustCompile(`diff --git a/.* b/(.*)`)

// TestDirectives are what the test command is given: the files the test
// patch touches, without data files; for Django, as test modules
// ("tests/a/b.py" is "a.b").
func TestDirectives(repo, testPatch string) []string {
	var ds []string
	for _, g := range directiveRe.FindAllStringSubmatch(testPatch, -1) {
		d := g[1]
		if slices.ContainsFunc(nonTestExts, func(e string) bool { return strings.HasSuffix(d, e) }) {
			continue
		}
		if repo == "django/django" {
			d = strings.TrimSuffix(d, ".py")
			d = strings.TrimPrefix(d, "tests/")
			d = strings.ReplaceAll(d, "/", ".")
		}
		ds = append(ds, d)
	}
	return ds
}

var (
	gitHeaderRe = regexp.MustCompile(`^diff --git (a/[^\t\n]+) (b/[^\t\n]+)`)
	sourceRe    = regexp.MustCompile(`^--- ([^\t\n]+)`)
)

// ModifiedFiles are the files a patch changes that exist before it
// (SWE-bench's get_modified_files: each file's source that is not
// /dev/null, without its "a/"): what the eval script restores to the base
// commit before it applies the test patch, and after the tests.
func ModifiedFiles(p string) []string {
	var files []string
	source, inFile := "", false
	flush := func() {
		if inFile && source != "/dev/null" && strings.HasPrefix(source, "a/") {
			files = append(files, source[2:])
		}
	}
	inHunk := false
	for _, l := range strings.Split(p, "\n") {
		if g := gitHeaderRe.FindStringSubmatch(l); g != nil {
			flush()
			source, inFile, inHunk = g[1], true, false
			continue
		}
		switch {
		case !inFile || inHunk:
			if strings.HasPrefix(l, "@@") {
				inHunk = true
			}
		case strings.HasPrefix(l, "new file mode"):
			source = "/dev/null"
		case strings.HasPrefix(l, "--- "):
			if g := sourceRe.FindStringSubmatch(l); g != nil {
				source = g[1]
			}
		case strings.HasPrefix(l, "@@"):
			inHunk = true
		}
	}
	flush()
	return files
}
