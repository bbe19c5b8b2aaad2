package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the module's directory, seen from this package's.
var root = filepath.Join("..", "..")

// pair is a `file:function` code span: path.go:Func or path.go:Type.Method.
var pair = regexp.MustCompile("`([A-Za-z0-9_./-]+\\.go):([A-Za-z_][A-Za-z0-9_]*(?:\\.[A-Za-z_][A-Za-z0-9_]*)?)`")

// walkHeading is the section the document opens with.
const walkHeading = "## The walk of one job"

// TestArchitectureNamesFunctionsThatExist fails on a `file:function` of
// docs/architecture.md whose file does not declare the function, and when
// the document does not open with the walk of one job or the walk names
// too few steps to be one.
func TestArchitectureNamesFunctionsThatExist(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	if !strings.HasPrefix(text, "# Architecture\n\n"+walkHeading+"\n") {
		t.Fatalf("docs/architecture.md does not open with %q", walkHeading)
	}
	walk, _, _ := strings.Cut(strings.TrimPrefix(text, "# Architecture\n\n"+walkHeading+"\n"), "\n## ")
	// The walk has 8 steps on the way to a ready record, each naming at
	// least one function, and the job's steps in the Processor.
	if n := len(pair.FindAllString(walk, -1)); n < 30 {
		t.Fatalf("the walk names %d file:function pairs; the walk of one job names every step (30 or more)", n)
	}
	decls := map[string]map[string]bool{} // file → declared functions
	for _, m := range pair.FindAllStringSubmatch(text, -1) {
		file, fn := m[1], m[2]
		if _, ok := decls[file]; !ok {
			decls[file] = declared(t, file)
		}
		if decls[file] == nil {
			t.Errorf("%s:%s: no file %s", file, fn, file)
		} else if !decls[file][fn] {
			t.Errorf("%s:%s: %s declares no function %s", file, fn, file, fn)
		}
	}
}

// TestDeclaredNamesMethodsByReceiver: the declarations the check matches a
// pair against are the file's functions, and its methods as Type.Method
// (pointer, value and generic receivers alike).
func TestDeclaredNamesMethodsByReceiver(t *testing.T) {
	dir := t.TempDir()
	src := "package p\nfunc F() {}\ntype T struct{}\nfunc (T) V() {}\nfunc (*T) P() {}\ntype G[X any] struct{}\nfunc (g *G[X]) M() {}\n"
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	got := declaredIn(t, filepath.Join(dir, "p.go"))
	for _, want := range []string{"F", "T.V", "T.P", "G.M"} {
		if !got[want] {
			t.Errorf("%s not found in %v", want, got)
		}
	}
	if got["V"] || got["T"] || len(got) != 4 {
		t.Errorf("declared = %v, want exactly F, T.V, T.P, G.M", got)
	}
}

// declared is the functions and methods of file (relative to the module),
// or nil when there is no such file.
func declared(t *testing.T, file string) map[string]bool {
	t.Helper()
	path := filepath.Join(root, filepath.FromSlash(file))
	if _, err := os.Stat(path); err != nil {
		return nil
	}
	return declaredIn(t, path)
}

func declaredIn(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fd.Name.Name
		if fd.Recv != nil && len(fd.Recv.List) == 1 {
			name = receiverType(fd.Recv.List[0].Type) + "." + name
		}
		names[name] = true
	}
	return names
}

// receiverType is the type name of a receiver: T, *T, T[X] and *T[X] all
// give T.
func receiverType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}
