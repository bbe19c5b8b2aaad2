package imports

import (
	"bufio"
	"bytes"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/hygiene-dev/hygiene/"

// pkg is one package of the module as go list and its doc describe it.
type pkg struct {
	path    string   // relative to the module, e.g. internal/pipeline
	command bool     // package main: the top of the house, may import anything
	imports []string // its direct imports of this module (relative)
	allowed []string // its "May import:" line (relative)
	hasRule bool
}

// mayImport finds the rule: a line of the package doc that starts with
// "May import:", up to the full stop that ends its list.
var mayImport = regexp.MustCompile(`(?s)(?:^|\n)May import:\s*(.*?)\.(?:\n|$)`)

// TestEveryImportIsAllowedByItsPackageDoc fails on any import its package
// doc does not allow, on a package without a "May import:" line, and on
// lines that would allow a cycle.
func TestEveryImportIsAllowedByItsPackageDoc(t *testing.T) {
	pkgs := listPackages(t)
	byPath := map[string]*pkg{}
	for _, p := range pkgs {
		byPath[p.path] = p
	}
	for _, p := range pkgs {
		if p.command {
			continue
		}
		if !p.hasRule {
			t.Errorf("%s: the package doc has no \"May import:\" line", p.path)
			continue
		}
		for _, imp := range p.imports {
			if !slices.Contains(p.allowed, imp) {
				t.Errorf("%s imports %s, which its package doc does not allow (May import: %s)", p.path, imp, strings.Join(p.allowed, ", "))
			}
		}
		for _, a := range p.allowed {
			if q, ok := byPath[a]; !ok {
				t.Errorf("%s: May import names %s, which is no package of this module", p.path, a)
			} else if q.command {
				t.Errorf("%s: May import names the command %s", p.path, a)
			}
		}
	}
	if cycle := findCycle(pkgs, byPath); cycle != nil {
		t.Errorf("the May import lines allow a cycle: %s", strings.Join(cycle, " -> "))
	}
}

// listPackages reads every package of the module (tests aside) and its doc.
func listPackages(t *testing.T) []*pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{.Name}}|{{.Dir}}|{{join .GoFiles \",\"}}|{{join .Imports \",\"}}", module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []*pkg
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Split(sc.Text(), "|")
		p := &pkg{path: strings.TrimPrefix(f[0], module), command: f[1] == "main"}
		for imp := range strings.SplitSeq(f[4], ",") {
			if strings.HasPrefix(imp, module) {
				p.imports = append(p.imports, strings.TrimPrefix(imp, module))
			}
		}
		p.allowed, p.hasRule = rule(t, f[2], strings.Split(f[3], ","))
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 30 {
		t.Fatalf("go list found %d packages; the listing is broken", len(pkgs))
	}
	return pkgs
}

// rule reads the "May import:" line of the package doc in dir.
func rule(t *testing.T, dir string, files []string) ([]string, bool) {
	t.Helper()
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if f.Doc == nil {
			continue
		}
		m := mayImport.FindStringSubmatch(f.Doc.Text())
		if m == nil {
			continue
		}
		list := strings.Join(strings.Fields(m[1]), " ")
		if list == "no package of this module" {
			return nil, true
		}
		var allowed []string
		for a := range strings.SplitSeq(list, ",") {
			allowed = append(allowed, strings.TrimSpace(a))
		}
		return allowed, true
	}
	return nil, false
}

// findCycle returns a cycle of the allowed edges, or nil.
func findCycle(pkgs []*pkg, byPath map[string]*pkg) []string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var visit func(p string) []string
	visit = func(p string) []string {
		state[p] = open
		stack = append(stack, p)
		if q, ok := byPath[p]; ok && !q.command {
			for _, a := range q.allowed {
				switch state[a] {
				case open:
					i := slices.Index(stack, a)
					return append(slices.Clone(stack[i:]), a)
				case unseen:
					if c := visit(a); c != nil {
						return c
					}
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[p] = done
		return nil
	}
	for _, p := range pkgs {
		if state[p.path] == unseen {
			if c := visit(p.path); c != nil {
				return c
			}
		}
	}
	return nil
}
