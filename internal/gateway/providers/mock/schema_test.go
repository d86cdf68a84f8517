package mock

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tidwall/gjson"
)

// generatorSchemas are the schemas every generated document is validated
// against: the keywords one by one, and the shapes SDKs send (Pydantic
// strict models with $defs, Zod with definitions and path refs, OpenAI's
// cookbook examples), recursive ones included.
var generatorSchemas = []struct{ name, schema string }{
	{"flat object", `{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},"ok":{"type":"boolean"},"none":{"type":"null"},"score":{"type":"number"}},"required":["name","age","ok","none","score"],"additionalProperties":false}`},
	{"pydantic strict with $defs", `{"$defs":{"Address":{"properties":{"street":{"title":"Street","type":"string"},"zip":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Zip"}},"required":["street","zip"],"title":"Address","type":"object","additionalProperties":false},"Role":{"enum":["admin","user"],"title":"Role","type":"string"}},"properties":{"name":{"title":"Name","type":"string"},"role":{"$ref":"#/$defs/Role"},"addresses":{"items":{"$ref":"#/$defs/Address"},"title":"Addresses","type":"array"},"nickname":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"Nickname"}},"required":["name","role","addresses","nickname"],"title":"User","type":"object","additionalProperties":false}`},
	{"pydantic recursive tree", `{"$defs":{"Node":{"properties":{"value":{"type":"integer"},"children":{"items":{"$ref":"#/$defs/Node"},"type":"array"}},"required":["value","children"],"type":"object","additionalProperties":false}},"properties":{"root":{"$ref":"#/$defs/Node"}},"required":["root"],"type":"object","additionalProperties":false}`},
	{"pydantic optional linked list", `{"$defs":{"Item":{"properties":{"label":{"type":"string"},"next":{"anyOf":[{"$ref":"#/$defs/Item"},{"type":"null"}]}},"required":["label","next"],"type":"object","additionalProperties":false}},"$ref":"#/$defs/Item"}`},
	{"zod definitions and type arrays", `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"event":{"$ref":"#/definitions/Event"},"tags":{"type":"array","items":{"type":"string"}},"note":{"type":["string","null"]}},"required":["event","tags","note"],"additionalProperties":false,"definitions":{"Event":{"type":"object","properties":{"title":{"type":"string"},"when":{"type":"string","format":"date-time"},"attendees":{"type":"array","items":{"type":"string","format":"email"}}},"required":["title","when","attendees"],"additionalProperties":false}}}`},
	{"zod path refs", `{"type":"object","properties":{"home":{"type":"object","properties":{"city":{"type":"string"},"a/b":{"type":"integer","minimum":5}},"required":["city","a/b"],"additionalProperties":false},"work":{"$ref":"#/properties/home"},"weird":{"$ref":"#/properties/home/properties/a~1b"}},"required":["home","work","weird"],"additionalProperties":false}`},
	{"recursive root ref", `{"type":"object","properties":{"type":{"type":"string","enum":["div","button","header"]},"label":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}},"attributes":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"value":{"type":"string"}},"required":["name","value"],"additionalProperties":false}}},"required":["type","label","children","attributes"],"additionalProperties":false}`},
	{"cookbook math reasoning", `{"type":"object","properties":{"steps":{"type":"array","items":{"type":"object","properties":{"explanation":{"type":"string"},"output":{"type":"string"}},"required":["explanation","output"],"additionalProperties":false}},"final_answer":{"type":"string"}},"required":["steps","final_answer"],"additionalProperties":false}`},
	{"enum const and discriminated union", `{"type":"object","properties":{"kind":{"const":"shape"},"color":{"enum":["red","green",null]},"shape":{"oneOf":[{"type":"object","properties":{"type":{"const":"circle"},"r":{"type":"number","exclusiveMinimum":0}},"required":["type","r"],"additionalProperties":false},{"type":"object","properties":{"type":{"const":"square"},"side":{"type":"number"}},"required":["type","side"],"additionalProperties":false}]}},"required":["kind","color","shape"]}`},
	{"string formats", `{"type":"object","properties":{"dt":{"type":"string","format":"date-time"},"d":{"type":"string","format":"date"},"t":{"type":"string","format":"time"},"e":{"type":"string","format":"email"},"u":{"type":"string","format":"uri"},"id":{"type":"string","format":"uuid"},"v4":{"type":"string","format":"ipv4"},"v6":{"type":"string","format":"ipv6"},"h":{"type":"string","format":"hostname"},"dur":{"type":"string","format":"duration"},"p":{"type":"string","format":"json-pointer"},"re":{"type":"string","format":"regex"}},"required":["dt","d","t","e","u","id","v4","v6","h","dur","p","re"]}`},
	{"string lengths and patterns", `{"type":"object","properties":{"long":{"type":"string","minLength":40},"short":{"type":"string","maxLength":3},"between":{"type":"string","minLength":7,"maxLength":9},"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"},"alt":{"type":"string","pattern":"^(?:yes|no)$"},"plus":{"type":"string","pattern":"^[a-z]+@[a-z]+\\.com$"},"loose":{"type":"string","pattern":"o"}},"required":["long","short","between","code","alt","plus","loose"]}`},
	{"numbers and bounds", `{"type":"object","properties":{"a":{"type":"integer","minimum":10,"maximum":20},"b":{"type":"number","exclusiveMinimum":0,"exclusiveMaximum":1},"c":{"type":"integer","multipleOf":7,"minimum":50},"d":{"type":"number","multipleOf":0.01,"minimum":0.015},"e":{"type":"integer","exclusiveMaximum":-5},"f":{"type":"number","maximum":-0.5},"g":{"type":"integer","multipleOf":2.5},"h":{"type":"number","minimum":1.5,"maximum":1.5},"i":{"type":"integer","exclusiveMinimum":1.5,"exclusiveMaximum":2.5}},"required":["a","b","c","d","e","f","g","h","i"]}`},
	{"arrays", `{"type":"object","properties":{"three":{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":5,"uniqueItems":true},"ints":{"type":"array","items":{"type":"integer","maximum":3},"minItems":3,"uniqueItems":true},"dates":{"type":"array","items":{"type":"string","format":"date"},"minItems":2,"uniqueItems":true},"tuple":{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"},{"type":"boolean"}],"items":false},"empty":{"type":"array","items":{"type":"string"},"maxItems":0},"enums":{"type":"array","items":{"enum":["x","y","z"]},"minItems":3,"uniqueItems":true}},"required":["three","ints","dates","tuple","empty","enums"]}`},
	{"object sizes", `{"type":"object","properties":{"map":{"type":"object","additionalProperties":{"type":"integer","minimum":2},"minProperties":3},"one":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"maxProperties":1},"undeclared":{"type":"object","required":["x"],"additionalProperties":{"type":"boolean"}},"free":{"type":"object"}},"required":["map","one","undeclared","free"]}`},
	{"type arrays", `{"type":"object","properties":{"a":{"type":["string","null"],"minLength":2},"b":{"type":["integer","string"]},"c":{"type":["null","object"],"properties":{"x":{"type":"integer"}},"required":["x"]},"d":{"type":["null"]}},"required":["a","b","c","d"]}`},
	{"allOf merge", `{"definitions":{"Base":{"type":"object","properties":{"id":{"type":"string","format":"uuid"}},"required":["id"]}},"allOf":[{"$ref":"#/definitions/Base"},{"properties":{"count":{"type":"integer","minimum":3}},"required":["count"]}],"description":"pydantic v1 style"}`},
	{"draft-04 exclusive booleans", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"p":{"type":"number","minimum":0,"exclusiveMinimum":true,"maximum":1,"exclusiveMaximum":true},"i":{"type":"integer","maximum":1,"exclusiveMaximum":true}},"required":["p","i"],"definitions":{"X":{"type":"string"}}}`},
	{"deep nesting", deepSchema(30)},
	{"no type keywords", `{"properties":{"list":{"items":{"minimum":4}},"text":{"maxLength":2},"num":{"multipleOf":3,"minimum":1},"any":{}},"required":["list","text","num","any"]}`},
	{"root boolean", `true`},
	{"empty schema", `{}`},
	{"mutual recursion", `{"$defs":{"A":{"type":"object","properties":{"b":{"$ref":"#/$defs/B"}},"required":["b"]},"B":{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#/$defs/A"},{"type":"null"}]}},"required":["a"]}},"$ref":"#/$defs/A"}`},
}

// deepSchema returns an object schema nested n levels deep.
func deepSchema(n int) string {
	s := `{"type":"string","minLength":1}`
	for i := range n {
		s = fmt.Sprintf(`{"type":"object","properties":{"l%d":%s},"required":["l%d"],"additionalProperties":false}`, i, s, i)
	}
	return s
}

// compileSchema compiles a schema with format assertion on.
func compileSchema(t testing.TB, schema string) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		t.Fatalf("schema: %v", err)
	}
	sch, err := c.Compile("mem://schema.json")
	if err != nil {
		t.Fatalf("compiling the schema: %v", err)
	}
	return sch
}

// validateJSON fails t unless doc is JSON valid against sch.
func validateJSON(t testing.TB, sch *jsonschema.Schema, doc string) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("not valid against the schema: %v\n%s", err, doc)
	}
}

// TestGenerateJSONValid validates the generated document for every
// schema of generatorSchemas, with several texts, and checks it is the
// same every time.
func TestGenerateJSONValid(t *testing.T) {
	for _, tt := range generatorSchemas {
		t.Run(tt.name, func(t *testing.T) {
			sch := compileSchema(t, tt.schema)
			for _, text := range []string{"hello world", "", "ünïcödé 🙂 \"quoted\" <tag>", "o"} {
				doc := generateJSON(gjson.Parse(tt.schema), text)
				validateJSON(t, sch, doc)
				if again := generateJSON(gjson.Parse(tt.schema), text); again != doc {
					t.Fatalf("not deterministic:\n%s\n%s", doc, again)
				}
			}
		})
	}
}

// TestGenerateJSONValues pins the values chosen for common keywords.
func TestGenerateJSONValues(t *testing.T) {
	tests := []struct{ schema, want string }{
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}}}`, `{"a":"hi","b":1}`},
		{`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"required":["b"]}`, `{"b":1}`},
		{`{"type":"array","items":{"type":"boolean"}}`, `[true]`},
		{`{"type":"array","items":{"type":"integer"},"minItems":3,"uniqueItems":true}`, `[1,2,3]`},
		{`{"type":"string","maxLength":1}`, `"h"`},
		{`{"type":"string","minLength":5}`, `"hi hi"`},
		{`{"type":"string","pattern":"^[A-Z]{2}\\d$"}`, `"AA0"`},
		{`{"type":"integer","minimum":5,"multipleOf":4}`, `8`},
		{`{"type":"number","multipleOf":0.25,"exclusiveMinimum":1}`, `1.25`},
		{`{"type":"number","exclusiveMaximum":0.5,"minimum":0.25}`, `0.25`},
		{`{"type":"number","exclusiveMaximum":0.5,"exclusiveMinimum":0.25}`, `0.375`},
		{`{"type":"number","multipleOf":0.1,"maximum":0.35}`, `0.3`},
		{`{"type":"string","format":"hostname"}`, `"host1.example.com"`},
		{`{"anyOf":[{"type":"integer"},{"type":"string"}]}`, `1`},
		{`{"type":["null","string"]}`, `"hi"`},
		{`{"enum":["x","y"]}`, `"x"`},
		{`{"const":{"k":[1, 2]}}`, `{"k":[1,2]}`},
		{`{"type":"string","format":"date"}`, `"2024-01-01"`},
		{`{"$defs":{"N":{"type":"object","properties":{"n":{"$ref":"#/$defs/N"}}}},"$ref":"#/$defs/N"}`, `{"n":{"n":{"n":{}}}}`},
	}
	for _, tt := range tests {
		if got := generateJSON(gjson.Parse(tt.schema), "hi"); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.schema, got, tt.want)
		}
	}
}

// TestGenerateJSONRandomSchemas feeds the generator random combinations of
// keywords and values, sensible and not: it must never panic, and must
// always write one bounded JSON value. Documents for schemas the
// validator accepts are validated, and most must be valid.
func TestGenerateJSONRandomSchemas(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	var compiled, valid int
	for i := range n {
		schema := randomSchema(r, 0)
		if i%3 == 0 {
			schema = `{"$defs":{"d":` + randomSchema(r, 1) + `},"allOf":[` + schema + `]}`
		}
		var doc string
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("panic %v for schema\n%s", p, schema)
				}
			}()
			doc = generateJSON(gjson.Parse(schema), "fuzz text")
		}()
		if !gjson.Valid(doc) {
			t.Fatalf("invalid JSON %q for schema\n%s", doc, schema)
		}
		if len(doc) > 4<<20 {
			t.Fatalf("%d bytes for schema\n%s", len(doc), schema)
		}
		sch, err := tryCompile(schema)
		if err != nil {
			continue
		}
		compiled++
		inst, _ := jsonschema.UnmarshalJSON(strings.NewReader(doc))
		if sch.Validate(inst) == nil {
			valid++
		}
	}
	// The rest are unsatisfiable (false, enum [], a const of another
	// type, a bare {"$ref":"#"}) or past the generator's caps.
	t.Logf("%d schemas, %d compiled, %d documents valid", n, compiled, valid)
	if compiled < n/4 || valid < compiled*2/3 {
		t.Errorf("only %d of %d compiled schemas got a valid document", valid, compiled)
	}
}

// TestGenerateJSONRandomSatisfiable validates the documents generated for
// random schemas that combine only keywords that can all hold at once:
// every one must be valid.
func TestGenerateJSONRandomSatisfiable(t *testing.T) {
	r := rand.New(rand.NewPCG(40, 3))
	n := 2000
	if testing.Short() {
		n = 200
	}
	for range n {
		defs := satisfiableSchema(r, 1, false)
		schema := satisfiableSchema(r, 0, true)
		schema = schema[:len(schema)-1] + `,"$defs":{"d":` + defs + `}}`
		sch := compileSchema(t, schema)
		for _, text := range []string{"fuzz text", ""} {
			validateJSON(t, sch, generateJSON(gjson.Parse(schema), text))
		}
	}
}

// satisfiableSchema returns a random object schema whose keywords can all
// be satisfied together; refs says whether it may use {"$ref":"#/$defs/d"}.
func satisfiableSchema(r *rand.Rand, depth int, refs bool) string {
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	itoa := strconv.Itoa
	var kv []string
	add := func(k, v string) { kv = append(kv, strconv.Quote(k)+":"+v) }
	typ := pick("string", "integer", "number", "boolean", "null", "object", "array", "ref", "anyOf", "enum")
	if depth > 3 && (typ == "object" || typ == "array" || typ == "anyOf") || typ == "ref" && !refs {
		typ = "string"
	}
	switch typ {
	case "ref":
		return `{"$ref":"#/$defs/d"}`
	case "anyOf":
		return `{"anyOf":[` + satisfiableSchema(r, depth+1, refs) + `,{"type":"null"}]}`
	case "enum":
		return pick(`{"enum":["a",1,null]}`, `{"const":{"k":"v"}}`, `{"type":"string","enum":["x","y"]}`)
	}
	if typ != "null" && r.IntN(4) == 0 {
		add("type", `[`+strconv.Quote(typ)+`,"null"]`)
	} else {
		add("type", strconv.Quote(typ))
	}
	switch typ {
	case "string":
		switch r.IntN(4) {
		case 0:
			lo := r.IntN(30)
			add("minLength", itoa(lo))
			add("maxLength", itoa(lo+r.IntN(5)))
		case 1:
			add("format", pick(`"date-time"`, `"date"`, `"time"`, `"email"`, `"uri"`, `"uuid"`, `"ipv4"`, `"ipv6"`, `"hostname"`, `"duration"`))
		case 2:
			add("pattern", pick(`"^[a-z]+$"`, `"\\d{3}"`, `"^(ab|cd)e*$"`, `"^[^0-9]+$"`, `"^.{5,}$"`, `"^\\p{Lu}\\w*$"`, `"^x?y+z{2,4}$"`))
		}
	case "integer", "number":
		lo := r.IntN(200) - 100
		width := 14 + r.IntN(100)
		if r.IntN(2) == 0 {
			add(pick("minimum", "exclusiveMinimum"), itoa(lo))
		}
		if r.IntN(2) == 0 {
			add(pick("maximum", "exclusiveMaximum"), itoa(lo+width))
		}
		if r.IntN(2) == 0 {
			if typ == "integer" {
				add("multipleOf", pick("1", "2", "5", "7", "0.5", "2.5"))
			} else {
				add("multipleOf", pick("0.01", "0.25", "3", "0.1"))
			}
		}
	case "object":
		np := r.IntN(4)
		var ps, req []string
		for j := range np {
			ps = append(ps, fmt.Sprintf(`"p%d":%s`, j, satisfiableSchema(r, depth+1, refs)))
			if r.IntN(2) == 0 {
				req = append(req, fmt.Sprintf(`"p%d"`, j))
			}
		}
		add("properties", "{"+strings.Join(ps, ",")+"}")
		if len(req) > 0 {
			add("required", "["+strings.Join(req, ",")+"]")
		}
		switch r.IntN(4) {
		case 0:
			add("additionalProperties", "false")
			add("minProperties", itoa(r.IntN(np+1)))
		case 1:
			add("additionalProperties", `{"type":"integer"}`)
			add("minProperties", itoa(np+r.IntN(3)))
		case 2:
			add("maxProperties", itoa(max(len(req), r.IntN(np+1))))
		}
	case "array":
		item := satisfiableSchema(r, depth+1, refs)
		if r.IntN(3) == 0 {
			item = pick(`{"type":"string"}`, `{"type":"integer","minimum":0}`, `{"type":"string","format":"date"}`, `{"enum":["a","b","c","d","e"]}`)
			add("uniqueItems", "true")
		}
		add("items", item)
		lo := r.IntN(4)
		add("minItems", itoa(lo))
		if r.IntN(2) == 0 {
			add("maxItems", itoa(lo+r.IntN(2)))
		}
	}
	return "{" + strings.Join(kv, ",") + "}"
}

// tryCompile compiles a schema, or says why it cannot.
func tryCompile(schema string) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("mem://schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("mem://schema.json")
}

// randomSchema returns a random schema: mostly well-formed keywords with
// random, sometimes conflicting or absurd, values.
func randomSchema(r *rand.Rand, depth int) string {
	pick := func(vals ...string) string { return vals[r.IntN(len(vals))] }
	num := func() string {
		return pick("0", "1", "-1", "2.5", "0.1", "1e3", "-7", "1e308", "1e-300", "100", "3", "1e999999999", "0.3")
	}
	if depth > 4 || r.IntN(8) == 0 {
		return pick(`{}`, `true`, `false`, `{"type":"string"}`, `{"type":"integer"}`, `{"$ref":"#"}`, `{"$ref":"#/$defs/d"}`, `{"$ref":"#/nowhere"}`, `{"$ref":"http://x"}`, `{"type":"null"}`)
	}
	var kv []string
	used := map[string]bool{}
	add := func(k, v string) {
		if !used[k] { // a duplicate member is read differently by gjson and the validator
			used[k] = true
			kv = append(kv, strconv.Quote(k)+":"+v)
		}
	}
	types := []string{`"string"`, `"integer"`, `"number"`, `"boolean"`, `"null"`, `"object"`, `"array"`, `["string","null"]`, `["null","object"]`, `[]`, `"bogus"`}
	for range 1 + r.IntN(5) {
		switch r.IntN(24) {
		case 0, 1, 2:
			add("type", types[r.IntN(len(types))])
		case 3:
			var ps []string
			for j := range r.IntN(4) {
				ps = append(ps, fmt.Sprintf(`"p%d":%s`, j, randomSchema(r, depth+1)))
			}
			add("properties", "{"+strings.Join(ps, ",")+"}")
		case 4:
			add("required", pick(`["p0"]`, `["p0","p1"]`, `["zz"]`, `[]`))
		case 5:
			add("additionalProperties", pick("false", "true", randomSchema(r, depth+1)))
		case 6:
			add("items", pick(randomSchema(r, depth+1), "false", `[{"type":"integer"}]`))
		case 7:
			add("prefixItems", "["+randomSchema(r, depth+1)+","+randomSchema(r, depth+1)+"]")
		case 8:
			add(pick("minItems", "maxItems", "minProperties", "maxProperties", "minLength", "maxLength"), pick("0", "1", "2", "5", "1000000", "-1", "2.5"))
		case 9:
			add("uniqueItems", pick("true", "false"))
		case 10:
			add("enum", pick(`["a","b"]`, `[]`, `[1,{"x":null}]`, `[null]`))
		case 11:
			add("const", pick(`"c"`, `0`, `{"a":[1]}`))
		case 12, 13:
			add(pick("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"), num())
		case 14:
			add("multipleOf", pick("0.01", "7", "2.5", "0", "-1", "0.3", "1e-300"))
		case 15:
			add("format", pick(`"date-time"`, `"date"`, `"time"`, `"email"`, `"uri"`, `"uuid"`, `"ipv4"`, `"ipv6"`, `"hostname"`, `"duration"`, `"nope"`))
		case 16:
			add("pattern", pick(`"^[a-z]+$"`, `"\\d{3}"`, `"(?=x)"`, `"^(a|b)c*$"`, `"["`, `"[^a-z]"`, `"^.{5,}$"`, `"\\p{Lu}"`))
		case 17, 18:
			add(pick("anyOf", "oneOf", "allOf"), "["+randomSchema(r, depth+1)+","+randomSchema(r, depth+1)+"]")
		case 19:
			add("$ref", pick(`"#"`, `"#/$defs/d"`, `"#/properties/p0"`, `"#/items"`, `"#/prefixItems/1"`, `"#/%24defs/d"`))
		case 20:
			add("not", randomSchema(r, depth+1))
		case 21:
			add("exclusiveMinimum", pick("true", "false"))
		case 22:
			add("$defs", `{"d":`+randomSchema(r, depth+1)+`}`)
		case 23:
			add("type", pick(`"object"`, `"array"`))
			add("required", `["p0"]`)
		}
	}
	return "{" + strings.Join(kv, ",") + "}"
}

// BenchmarkGenerateJSON generates the documents of generatorSchemas.
func BenchmarkGenerateJSON(b *testing.B) {
	schemas := make([]gjson.Result, len(generatorSchemas))
	for i, s := range generatorSchemas {
		schemas[i] = gjson.Parse(s.schema)
	}
	for b.Loop() {
		for _, s := range schemas {
			generateJSON(s, "hello world")
		}
	}
}
