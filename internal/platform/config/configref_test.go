package config

import (
	"bytes"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/config-reference.md from the config package's doc comments")

// configReferencePath is the generated page, relative to this package.
const configReferencePath = moduleRoot + "/docs/config-reference.md"

// TestConfigReferenceIsCurrent renders the configuration reference from
// the doc comments of Config and the structs it reaches, and compares it
// with docs/config-reference.md; with -update it rewrites the page.
func TestConfigReferenceIsCurrent(t *testing.T) {
	got, err := renderConfigReference(".")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(configReferencePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(configReferencePath)
	if err != nil {
		t.Fatalf("%v; run `go test ./internal/platform/config -run TestConfigReferenceIsCurrent -update` to generate it", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("docs/config-reference.md is stale (first difference at line %d); run `go test ./internal/platform/config -run TestConfigReferenceIsCurrent -update` to regenerate it",
			firstDiffLine(got, want))
	}
}

func firstDiffLine(a, b []byte) int {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

// modulePath is this module's import path; packages under it are found
// relative to the module root (moduleRoot).
const modulePath = "github.com/modelgate/modelgate/"

// moduleRoot is the module's root directory, relative to this package's.
const moduleRoot = "../../.."

// yamlKeyedBy names the slice types of this package that YAML writes as a
// map keyed by one of the element's fields (see Providers.UnmarshalYAML).
var yamlKeyedBy = map[string]string{"Providers": "name"}

// srcPackage is one parsed package: its named types and, per file, the
// import paths by local name.
type srcPackage struct {
	types   map[string]*ast.TypeSpec
	docs    map[string]string // a type's doc comment
	imports map[*ast.TypeSpec]map[string]string
}

func parsePackage(dir string) (*srcPackage, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	p := &srcPackage{types: map[string]*ast.TypeSpec{}, docs: map[string]string{}, imports: map[*ast.TypeSpec]map[string]string{}}
	fset := token.NewFileSet()
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			path, _ := strconv.Unquote(im.Path.Value)
			local := path[strings.LastIndex(path, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = path
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, s := range gd.Specs {
				ts := s.(*ast.TypeSpec)
				p.types[ts.Name.Name] = ts
				p.imports[ts] = imports
				doc := ts.Doc
				if doc == nil && len(gd.Specs) == 1 {
					doc = gd.Doc
				}
				p.docs[ts.Name.Name] = prose(doc)
			}
		}
	}
	return p, nil
}

// prose joins a comment's lines into one paragraph.
func prose(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return strings.Join(strings.Fields(cg.Text()), " ")
}

// refRenderer walks Config and renders the page.
type refRenderer struct {
	dir     string
	pkg     *srcPackage
	foreign map[string]*srcPackage // by import path
	out     bytes.Buffer
	pending []section
}

// section is a struct of this package reached at a YAML path.
type section struct {
	path, typeName string
}

func renderConfigReference(dir string) ([]byte, error) {
	pkg, err := parsePackage(dir)
	if err != nil {
		return nil, err
	}
	r := &refRenderer{dir: dir, pkg: pkg, foreign: map[string]*srcPackage{}}
	r.out.WriteString(configReferenceIntro)
	r.pending = []section{{"", "Config"}}
	for len(r.pending) > 0 {
		s := r.pending[0]
		r.pending = r.pending[1:]
		if err := r.section(s); err != nil {
			return nil, err
		}
	}
	return r.out.Bytes(), nil
}

const configReferenceIntro = `# Configuration reference

Every configuration field, generated from the doc comments of the config
package. The keys are those of the YAML file named by ` + "`config_file`" + `;
the JSON config carries the same fields, with the same names, under
` + "`apps.modelgate`" + ` (except ` + "`providers`" + `: a map keyed by
instance name in YAML, a list of objects with a ` + "`name`" + ` field in
JSON). The Caddyfile ` + "`modelgate`" + ` global option fills the same app
config. A description names the environment variable that overrides the
field, when there is one, and in places its Caddyfile form.
Environment variables take precedence over the app config (Caddyfile or
JSON), which takes precedence over the YAML file; see
[Configuration](configuration.md) for the layering and the Caddyfile syntax.

Do not edit: generated from the config package's doc comments by TestConfigReferenceIsCurrent -update.
`

func (r *refRenderer) section(s section) error {
	ts := r.pkg.types[s.typeName]
	st, ok := ts.Type.(*ast.StructType)
	if !ok {
		return fmt.Errorf("%s is not a struct", s.typeName)
	}
	heading := "Top level"
	if s.path != "" {
		heading = "`" + s.path + "`"
	}
	fmt.Fprintf(&r.out, "\n## %s\n\n", heading)
	if doc := r.pkg.docs[s.typeName]; doc != "" {
		fmt.Fprintf(&r.out, "%s\n\n", markdownText(doc))
	}
	r.out.WriteString("| Key | Type | Description |\n| --- | --- | --- |\n")
	return r.fields(s.path, ts, st)
}

func (r *refRenderer) fields(prefix string, ts *ast.TypeSpec, st *ast.StructType) error {
	for _, f := range st.Fields.List {
		key, skip := yamlKey(f)
		if skip {
			continue
		}
		if len(f.Names) == 0 { // embedded: flatten a struct of this package
			id, ok := derefType(f.Type).(*ast.Ident)
			if !ok {
				return fmt.Errorf("%s: embedded %T not supported", ts.Name.Name, f.Type)
			}
			ets := r.pkg.types[id.Name]
			est, ok := ets.Type.(*ast.StructType)
			if !ok {
				return fmt.Errorf("%s: embedded %s is not a struct", ts.Name.Name, id.Name)
			}
			if err := r.fields(prefix, ets, est); err != nil {
				return err
			}
			continue
		}
		if !f.Names[0].IsExported() {
			continue
		}
		if key == "" {
			key = strings.ToLower(f.Names[0].Name)
		}
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		typ, err := r.typeText(path, f.Type, r.pkg.imports[ts])
		if err != nil {
			return fmt.Errorf("%s.%s: %w", ts.Name.Name, f.Names[0].Name, err)
		}
		fmt.Fprintf(&r.out, "| `%s` | %s | %s |\n", path, typ, markdownText(prose(f.Doc)))
	}
	return nil
}

// yamlKey returns a field's YAML key ("" when the tag names none) and
// whether the field is skipped (yaml:"-").
func yamlKey(f *ast.Field) (string, bool) {
	if f.Tag == nil {
		return "", false
	}
	tag, _ := strconv.Unquote(f.Tag.Value)
	name, _, _ := strings.Cut(reflect.StructTag(tag).Get("yaml"), ",")
	return name, name == "-"
}

func derefType(e ast.Expr) ast.Expr {
	if s, ok := e.(*ast.StarExpr); ok {
		return s.X
	}
	return e
}

// typeText renders a field type simply; a struct of this package becomes
// "object" and is queued as a section at path.
func (r *refRenderer) typeText(path string, e ast.Expr, imports map[string]string) (string, error) {
	switch e := e.(type) {
	case *ast.StarExpr:
		return r.typeText(path, e.X, imports)
	case *ast.ArrayType:
		elem, err := r.typeText(path+"[]", e.Elt, imports)
		return "list of " + elem, err
	case *ast.MapType:
		key, err := r.typeText(path, e.Key, imports)
		if err != nil {
			return "", err
		}
		val, err := r.typeText(path+".<key>", e.Value, imports)
		return "map of " + key + " to " + val, err
	case *ast.InterfaceType:
		return "any", nil
	case *ast.Ident:
		if s, ok := basicTypes[e.Name]; ok {
			return s, nil
		}
		ts, ok := r.pkg.types[e.Name]
		if !ok {
			return "", fmt.Errorf("unknown type %s", e.Name)
		}
		if keyField, ok := yamlKeyedBy[e.Name]; ok {
			elem, ok := ts.Type.(*ast.ArrayType)
			if !ok {
				return "", fmt.Errorf("%s: keyed type is not a slice", e.Name)
			}
			elemType, err := r.typeText(path+".<"+keyField+">", elem.Elt, imports)
			return "map of " + keyField + " to " + elemType, err
		}
		if _, ok := ts.Type.(*ast.StructType); ok {
			r.pending = append(r.pending, section{path, e.Name})
			return "object", nil
		}
		return r.typeText(path, ts.Type, r.pkg.imports[ts])
	case *ast.SelectorExpr:
		pkgName := e.X.(*ast.Ident).Name
		if pkgName == "time" && e.Sel.Name == "Duration" {
			return "duration", nil
		}
		importPath := imports[pkgName]
		rel, ok := strings.CutPrefix(importPath, modulePath)
		if !ok {
			return "", fmt.Errorf("type %s.%s outside the module", pkgName, e.Sel.Name)
		}
		fp, ok := r.foreign[importPath]
		if !ok {
			var err error
			if fp, err = parsePackage(filepath.Join(r.dir, moduleRoot, rel)); err != nil {
				return "", err
			}
			r.foreign[importPath] = fp
		}
		return foreignTypeText(fp, pkgName, e.Sel.Name)
	}
	return "", fmt.Errorf("unsupported type expression %T", e)
}

// foreignTypeText renders a type of another package of the module; its
// structs are objects named by their Go type, not expanded here.
func foreignTypeText(p *srcPackage, pkgName, name string) (string, error) {
	if s, ok := basicTypes[name]; ok {
		return s, nil
	}
	ts, ok := p.types[name]
	if !ok {
		return "", fmt.Errorf("unknown type %s.%s", pkgName, name)
	}
	var render func(ast.Expr) (string, error)
	render = func(e ast.Expr) (string, error) {
		switch e := e.(type) {
		case *ast.StarExpr:
			return render(e.X)
		case *ast.ArrayType:
			s, err := render(e.Elt)
			return "list of " + s, err
		case *ast.MapType:
			k, err := render(e.Key)
			if err != nil {
				return "", err
			}
			v, err := render(e.Value)
			return "map of " + k + " to " + v, err
		case *ast.Ident:
			if s, ok := basicTypes[e.Name]; ok {
				return s, nil
			}
			return foreignTypeText(p, pkgName, e.Name)
		}
		return "", fmt.Errorf("unsupported type expression %T in %s.%s", e, pkgName, name)
	}
	if _, ok := ts.Type.(*ast.StructType); ok {
		return "object (`" + pkgName + "." + name + "`)", nil
	}
	return render(ts.Type)
}

var basicTypes = map[string]string{
	"string": "string", "bool": "boolean",
	"int": "integer", "int8": "integer", "int16": "integer", "int32": "integer", "int64": "integer",
	"uint": "integer", "uint8": "integer", "uint16": "integer", "uint32": "integer", "uint64": "integer",
	"float32": "number", "float64": "number", "any": "any",
}

// markdownText escapes comment prose for a table cell: outside `code`
// spans, characters Markdown would read as HTML or emphasis; everywhere,
// the cell separator.
func markdownText(s string) string {
	parts := strings.Split(s, "`")
	for i, p := range parts {
		if i%2 == 0 {
			p = strings.NewReplacer("<", "&lt;", ">", "&gt;", "*", `\*`).Replace(p)
		}
		parts[i] = strings.ReplaceAll(p, "|", `\|`)
	}
	if len(parts)%2 == 0 { // an unpaired backtick: keep it literal
		return strings.Join(parts[:len(parts)-1], "`") + "\\`" + parts[len(parts)-1]
	}
	return strings.Join(parts, "`")
}
