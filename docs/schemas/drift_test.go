package schemas_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/hygiene-dev/hygiene/docs/schemas"
	"github.com/hygiene-dev/hygiene/internal/httpapi"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/wire"
)

// The drift tests hold each schema to the Go code it describes: a member,
// option, code or header that one side has and the other lacks fails them.
// Structs are compared by reflection (json names, and types); what Go
// declares only as a switch or as constants is read from the source.

// node is a schema, or a part of one, as decoded JSON.
type node = map[string]any

// schemaDoc is schema name decoded.
func schemaDoc(t *testing.T, name string) node {
	t.Helper()
	b, err := schemas.Schema(name)
	if err != nil {
		t.Fatal(err)
	}
	var n node
	if err := json.Unmarshal(b, &n); err != nil {
		t.Fatal(err)
	}
	return n
}

// resolver follows a node's $ref within the three schemas.
type resolver map[string]node // by file name

func newResolver(t *testing.T) resolver {
	r := resolver{}
	for _, name := range schemas.Names {
		r[schemas.File(name)] = schemaDoc(t, name)
	}
	return r
}

// deref follows n's $ref (in the file doc, or another file), repeatedly.
func (r resolver) deref(t *testing.T, doc string, n node) (string, node) {
	t.Helper()
	for {
		ref, ok := n["$ref"].(string)
		if !ok {
			return doc, n
		}
		file, pointer, _ := strings.Cut(ref, "#")
		if file != "" {
			doc = file
		}
		target := r[doc]
		if target == nil {
			t.Fatalf("$ref %s: no schema %s", ref, doc)
		}
		for tok := range strings.SplitSeq(strings.TrimPrefix(pointer, "/"), "/") {
			if tok == "" {
				continue
			}
			next, ok := target[tok].(node)
			if !ok {
				t.Fatalf("$ref %s does not resolve", ref)
			}
			target = next
		}
		n = target
	}
}

// props is the property names of an object schema, sorted.
func props(n node) []string {
	p, _ := n["properties"].(node)
	return slices.Sorted(maps.Keys(p))
}

func prop(n node, name string) node {
	p, _ := n["properties"].(node)
	v, _ := p[name].(node)
	return v
}

func strs(v any) []string {
	list, _ := v.([]any)
	out := make([]string, 0, len(list))
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

var (
	rawMessage   = reflect.TypeFor[json.RawMessage]()
	durationType = reflect.TypeFor[settings.Duration]()
)

// jsonFields are t's fields by json name, a field with no tag flattened
// when it is embedded (as encoding/json does), and a field tagged
// `job:"no"` left out when job is set (a job cannot set it).
func jsonFields(t reflect.Type, job bool) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		switch {
		case f.Anonymous && tag == "":
			maps.Copy(out, jsonFields(f.Type, job))
			continue
		case name == "-" || !f.IsExported() || job && f.Tag.Get("job") == "no":
			continue
		case name == "":
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// compare checks schema n (in file doc) against Go type typ at path: an
// object's properties are exactly the struct's json fields, and for an
// output (the payload) its required members exactly those without
// omitempty; each leaf's JSON type is the Go type's.
func (r resolver) compare(t *testing.T, path string, typ reflect.Type, doc string, n node, output, job bool) {
	t.Helper()
	doc, n = r.deref(t, doc, n)
	if typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	want := ""
	switch {
	case typ == rawMessage:
		return // any JSON: the schema says what it may be
	case typ == durationType:
		want = "integer"
	case typ.Kind() == reflect.Struct:
		want = "object"
		fields := jsonFields(typ, job)
		if got := props(n); !slices.Equal(got, slices.Sorted(maps.Keys(fields))) {
			t.Errorf("%s: the schema has the members %v, the Go type %s has %v", path, got, typ, slices.Sorted(maps.Keys(fields)))
		}
		var required []string
		for name, f := range fields {
			if !strings.Contains(f.Tag.Get("json"), "omitempty") {
				required = append(required, name)
			}
			if p := prop(n, name); p != nil {
				r.compare(t, path+"."+name, f.Type, doc, p, output, job)
			}
		}
		if output {
			if slices.Sort(required); !slices.Equal(strs(n["required"]), required) {
				t.Errorf("%s: the schema requires %v, the Go type %s always writes %v", path, strs(n["required"]), typ, required)
			}
		}
	case typ.Kind() == reflect.Map:
		want = "object"
		add, ok := n["additionalProperties"].(node)
		if !ok {
			t.Errorf("%s: a map in Go (%s), but the schema gives no additionalProperties schema", path, typ)
			break
		}
		r.compare(t, path+".*", typ.Elem(), doc, add, output, job)
	case typ.Kind() == reflect.Slice:
		want = "array"
		if items, ok := n["items"].(node); ok {
			r.compare(t, path+"[]", typ.Elem(), doc, items, output, job)
		}
	case typ.Kind() == reflect.Bool:
		want = "boolean"
	case typ.Kind() == reflect.String:
		want = "string"
	case typ.Kind() >= reflect.Int && typ.Kind() <= reflect.Uint64:
		want = "integer"
	case typ.Kind() == reflect.Float64:
		want = "number"
	default:
		t.Fatalf("%s: no JSON type for %s", path, typ)
	}
	if got, _ := n["type"].(string); got != want {
		t.Errorf("%s: the schema's type is %v, the Go type %s is %s", path, n["type"], typ, want)
	}
}

// sourceStrings are the string literals among the expressions pick
// selects in a Go source file of the module, sorted and without repeats.
func sourceStrings(t *testing.T, file string, pick func(ast.Node) []ast.Expr) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", file), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		for _, e := range pick(n) {
			if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				s, _ := strconv.Unquote(lit.Value)
				out = append(out, s)
			}
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// The job's top-level members are the cases of DecodeJob's switch over a
// member's key (transcript/job.go): the decoder refuses any other.
func TestJobMembersAreTheDecodersCases(t *testing.T) {
	cases := sourceStrings(t, "internal/transcript/job.go", func(n ast.Node) []ast.Expr {
		sw, ok := n.(*ast.SwitchStmt)
		if !ok {
			return nil
		}
		if sel, ok := sw.Tag.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Key" {
			return nil
		}
		var out []ast.Expr
		for _, c := range sw.Body.List {
			out = append(out, c.(*ast.CaseClause).List...)
		}
		return out
	})
	if len(cases) < 5 {
		t.Fatalf("found %d cases of DecodeJob's switch over f.Key: the test no longer finds it", len(cases))
	}
	if got := props(schemaDoc(t, schemas.Job)); !slices.Equal(got, cases) {
		t.Errorf("the job schema's members are %v; DecodeJob reads %v", got, cases)
	}
}

// Every option the decoders read is in the schema, with its type, and no
// other: transcript.Options' own fields, settings.Request's, the image
// aliases, and the images and pruning sections less what a job cannot set.
func TestOptionsAreTheGoOptions(t *testing.T) {
	r := newResolver(t)
	_, options := r.deref(t, "job.schema.json", prop(schemaDoc(t, schemas.Job), "options"))
	want := map[string]reflect.Type{}
	for name, f := range jsonFields(reflect.TypeFor[transcript.Options](), true) {
		want[name] = f.Type
	}
	for name, f := range jsonFields(reflect.TypeFor[settings.Request](), true) {
		want[name] = f.Type
	}
	imageFields := jsonFields(reflect.TypeFor[settings.Images](), true)
	for alias, key := range settings.ImageAliases {
		want[alias] = imageFields[key].Type
	}
	contextFields := jsonFields(reflect.TypeFor[settings.Context](), true)
	for alias, key := range settings.ContextAliases {
		want[alias] = contextFields[key].Type
	}
	want["images"] = reflect.TypeFor[settings.Images]()
	want["pruning"] = reflect.TypeFor[settings.Pruning]()
	want["context"] = reflect.TypeFor[settings.Context]()
	if got := props(options); !slices.Equal(got, slices.Sorted(maps.Keys(want))) {
		t.Errorf("the job schema's options are %v; the decoders read %v", got, slices.Sorted(maps.Keys(want)))
	}
	for name, typ := range want {
		if p := prop(options, name); p != nil {
			r.compare(t, "options."+name, typ, "job.schema.json", p, false, true)
		}
	}
	if got, want := strs(prop(options, "render")["enum"]), []string{wire.RenderMessages, wire.RenderRequest}; !slices.Equal(got, want) {
		t.Errorf("options.render: the schema has %v, package wire %v", got, want)
	}
	_, pruning := r.deref(t, "job.schema.json", prop(options, "pruning"))
	if got, want := strs(prop(pruning, "mode")["enum"]), []string{settings.PruningCacheTTL, settings.PruningOff}; !slices.Equal(got, want) {
		t.Errorf("options.pruning.mode: the schema has %v, package settings %v", got, want)
	}
}

// The target and a tool of options.tools are decoded strictly into their
// Go types; custom entries are read for customType and data.
func TestJobTypesAreTheGoTypes(t *testing.T) {
	r := newResolver(t)
	job := schemaDoc(t, schemas.Job)
	r.compare(t, "target", reflect.TypeFor[transcript.Target](), "job.schema.json", prop(job, "target"), false, true)
	_, options := r.deref(t, "job.schema.json", prop(job, "options"))
	r.compare(t, "options.tools", reflect.TypeFor[[]transcript.Tool](), "job.schema.json", prop(options, "tools"), false, true)
	_, format := r.deref(t, "job.schema.json", prop(job, "request_format"))
	if got, want := strs(format["enum"]), slices.Sorted(slices.Values(wire.FormatNames())); !slices.Equal(got, want) {
		t.Errorf("request_format: the schema has %v, wire.ParseFormat takes %v", got, want)
	}
}

// The report is stage.Report, member for member; the payload's formats are
// wire.Formats. (The payload's own members are checked against what the
// worker writes, in TestPayloadsOverThePipeline.)
func TestPayloadTypesAreTheGoTypes(t *testing.T) {
	r := newResolver(t)
	payload := schemaDoc(t, schemas.Payload)
	r.compare(t, "report", reflect.TypeFor[stage.Report](), "payload.schema.json", prop(payload, "report"), true, false)
	r.compare(t, "tool_names", reflect.TypeFor[map[string]string](), "payload.schema.json", prop(payload, "tool_names"), true, false)
	var formats []string
	for _, f := range wire.Formats {
		formats = append(formats, string(f))
	}
	slices.Sort(formats)
	for _, member := range []string{"input_format", "request_format"} {
		_, n := r.deref(t, "payload.schema.json", prop(payload, member))
		if got := strs(n["enum"]); !slices.Equal(got, formats) {
			t.Errorf("%s: the schema has %v, wire.Formats %v", member, got, formats)
		}
	}
}

// deadletterConsts are the string constants of package deadletter whose
// declaration selects.
func deadletterConsts(t *testing.T, file string, keep func(*ast.ValueSpec) bool) []string {
	return sourceStrings(t, filepath.Join("internal/deadletter", file), func(n ast.Node) []ast.Expr {
		if spec, ok := n.(*ast.ValueSpec); ok && keep(spec) {
			return spec.Values
		}
		return nil
	})
}

// The dead-letter codes are package deadletter's constants of type Code but
// unreadable (no Kafka record is unreadable); its headers are its Header
// constants. The HTTP problem's codes are the same and package httpapi's
// Code constants (busy, draining, ...: refusals no job ran for).
func TestDeadLetterIsPackageDeadletter(t *testing.T) {
	codes := deadletterConsts(t, "code.go", func(s *ast.ValueSpec) bool {
		id, ok := s.Type.(*ast.Ident)
		return ok && id.Name == "Code" && s.Names[0].Name != "CodeUnreadable"
	})
	headers := deadletterConsts(t, "header.go", func(s *ast.ValueSpec) bool {
		return strings.HasPrefix(s.Names[0].Name, "Header")
	})
	if len(codes) < 9 || len(headers) < 6 {
		t.Fatalf("found %d codes and %d headers in internal/deadletter: the test no longer finds them", len(codes), len(headers))
	}
	r := newResolver(t)
	dl := schemaDoc(t, schemas.DeadLetter)
	_, code := r.deref(t, "deadletter.schema.json", dl["$defs"].(node)["code"].(node))
	if got := strs(code["enum"]); !slices.Equal(got, codes) {
		t.Errorf("the dead-letter schema's codes are %v; package deadletter's %v", got, codes)
	}
	_, h := r.deref(t, "deadletter.schema.json", prop(dl, "headers"))
	if got := props(h); !slices.Equal(got, headers) {
		t.Errorf("the dead-letter schema's headers are %v; package deadletter's %v", got, headers)
	}
	var doc struct {
		Components struct {
			Schemas map[string]node `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(schemas.OpenAPI(), &doc); err != nil {
		t.Fatal(err)
	}
	problem := doc.Components.Schemas["Problem"]
	r.compare(t, "Problem", reflect.TypeFor[httpapi.Problem](), "", problem, true, false)
	refusals := sourceStrings(t, "internal/httpapi/httpapi.go", func(n ast.Node) []ast.Expr {
		if spec, ok := n.(*ast.ValueSpec); ok && strings.HasPrefix(spec.Names[0].Name, "Code") {
			return spec.Values
		}
		return nil
	})
	if !slices.Contains(refusals, httpapi.CodeBusy) {
		t.Fatalf("found the refusal codes %v in internal/httpapi: the test no longer finds them", refusals)
	}
	want := slices.Sorted(slices.Values(append(slices.Clone(codes), refusals...)))
	if got := strs(prop(problem, "code")["enum"]); !slices.Equal(got, want) {
		t.Errorf("the OpenAPI Problem's codes are %v; the worker answers %v", got, want)
	}
}
