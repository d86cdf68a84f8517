package mock

import (
	"crypto/sha256"
	"encoding/hex"
	"math/big"
	"net/url"
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// Bounds of the schema-driven generator. Past them it stops following the
// schema and writes what ends the document soonest, so that every schema,
// however recursive or large, gives an answer at once (which then may not
// be valid against it).
const (
	// maxSchemaRefs is how many $refs one path may follow before the
	// generator writes only what the schema requires: required properties,
	// minItems items, null where null is allowed.
	maxSchemaRefs = 3
	// minimalSchemaDepth is the nesting depth past which it does the same.
	minimalSchemaDepth = 16
	// maxSchemaDepth is the nesting depth past which every value is null.
	maxSchemaDepth = 48
	// maxSchemaNodes bounds the values written for one document; past it
	// every value is null.
	maxSchemaNodes = 1 << 14
	// maxSchemaItems and maxSchemaRunes cap minItems and minLength.
	maxSchemaItems = 64
	maxSchemaRunes = 4096
)

// schemaGen writes a JSON document that is valid against a JSON Schema:
// deterministic, the smallest document that still shows every part the
// schema declares, with string values taken from a text. See generateJSON.
type schemaGen struct {
	root     gjson.Result // the schema "#" refers to
	text     string       // the value of plain strings
	nodes    int          // values written so far
	patterns map[string]*regexp.Regexp
}

// genState is the position of a value in the generated document.
type genState struct {
	depth   int  // nesting depth
	refs    int  // $refs followed on the way here
	variant int  // > 0 for the variant-th (0-based) item of a uniqueItems array
	minimal bool // write only what the schema requires
}

// generateJSON returns a compact JSON document valid against schema, with
// "#"-relative $refs resolved against schema itself; plain strings are
// text. How each keyword is used:
//
//   - $ref: a JSON pointer into the root ("#", "#/$defs/X",
//     "#/definitions/X", "#/properties/a/items", ...), followed; other
//     members beside it are ignored. Past maxSchemaRefs refs on one path
//     (recursive schemas) only what is required is written.
//   - enum and const: the first enum value, the const.
//   - type: the first type of an array other than "null" (null when
//     bounding recursion); without type, anyOf or oneOf take their first
//     branch, allOf its branches merged, and the type is guessed from the
//     keywords (properties → object, items → array, minLength → string,
//     minimum → number, else a string).
//   - object: the required properties, or every property when none is
//     required, then more up to minProperties (declared ones, then
//     "key<n>" ones when additionalProperties allows), at most
//     maxProperties; undeclared required properties follow
//     additionalProperties.
//   - array: prefixItems (or an items array) in full, then items up to
//     max(minItems, 1), at most maxItems; with uniqueItems the items
//     differ (strings get a number, numbers a step; best effort).
//   - string: a value for format date-time, date, time, duration, email,
//     hostname, ipv4, ipv6, uri (and -reference, iri), uuid, json-pointer,
//     regex; else text, padded to minLength and cut to maxLength (in code
//     points). pattern is best effort: text when it matches, else a string
//     built from the pattern's syntax tree (literals, the first
//     alternative, the first of a class, minimum repeats) if that matches.
//   - integer and number: 1, else the value nearest it that obeys
//     minimum, maximum, exclusiveMinimum, exclusiveMaximum (numbers, or
//     draft 4 booleans) and multipleOf, computed exactly.
//   - boolean true, null null; the schema true is any value (text), false
//     has none (null).
//
// not, if/then/else, contains, dependent*, patternProperties and
// propertyNames are ignored; oneOf takes its first branch even where the
// value also fits another.
func generateJSON(schema gjson.Result, text string) string {
	g := &schemaGen{root: schema, text: text}
	var b strings.Builder
	g.value(&b, schema, genState{})
	return b.String()
}

// value writes a value valid against s.
func (g *schemaGen) value(b *strings.Builder, s gjson.Result, st genState) {
	g.nodes++
	if st.depth > maxSchemaDepth || st.refs > maxSchemaDepth || g.nodes > maxSchemaNodes {
		b.WriteString("null")
		return
	}
	st.depth++
	if st.depth > minimalSchemaDepth || st.refs > maxSchemaRefs {
		st.minimal = true
	}
	switch {
	case s.Type == gjson.False:
		b.WriteString("null") // nothing is valid
		return
	case !s.IsObject():
		b.WriteString(jsonString(g.text)) // true, or no schema: anything
		return
	}

	if ref := s.Get("$ref"); ref.Type == gjson.String {
		if target, ok := g.resolve(ref.Str); ok {
			st.refs++
			st.depth-- // a $ref is not a level of the document
			g.value(b, target, st)
			return
		}
	}
	if enum := s.Get("enum"); enum.IsArray() {
		if vals := enum.Array(); len(vals) > 0 {
			b.WriteString(compactJSON(vals[st.variant%len(vals)].Raw))
			return
		}
	}
	if c := s.Get("const"); c.Exists() {
		b.WriteString(compactJSON(c.Raw))
		return
	}

	if all := s.Get("allOf"); all.IsArray() && len(all.Array()) > 0 {
		st.depth--
		g.value(b, g.mergeAllOf(s), st)
		return
	}
	typ, nullable := schemaTypes(s)
	if nullable && st.minimal {
		b.WriteString("null")
		return
	}
	if typ == "" {
		if alt, ok := g.branch(s, st.minimal); ok {
			st.depth--
			g.value(b, alt, st)
			return
		}
		typ = guessType(s)
	}

	switch typ {
	case "object":
		g.object(b, s, st)
	case "array":
		g.array(b, s, st)
	case "string":
		b.WriteString(jsonString(g.str(s, st)))
	case "integer":
		b.WriteString(g.number(s, true, st))
	case "number":
		b.WriteString(g.number(s, false, st))
	case "boolean":
		b.WriteString(strconv.FormatBool(st.variant%2 == 0))
	case "null":
		b.WriteString("null")
	default:
		b.WriteString(jsonString(g.text))
	}
}

// schemaTypes returns the first type of s's "type" other than "null" ("" if
// none) and whether "null" is allowed; a missing type gives "", false.
func schemaTypes(s gjson.Result) (typ string, nullable bool) {
	t := s.Get("type")
	if t.Type == gjson.String {
		if t.Str == "null" {
			return "null", true
		}
		return t.Str, false
	}
	t.ForEach(func(_, v gjson.Result) bool {
		switch {
		case v.Type != gjson.String:
		case v.Str == "null":
			nullable = true
		case typ == "":
			typ = v.Str
		}
		return true
	})
	if typ == "" && nullable {
		typ = "null"
	}
	return typ, nullable
}

// guessType returns the type a schema without "type" implies by its
// keywords, "string" when nothing does.
func guessType(s gjson.Result) string {
	has := func(keys ...string) bool {
		for _, k := range keys {
			if s.Get(k).Exists() {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "minProperties", "maxProperties"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems"):
		return "array"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return "string"
}

// branch returns the anyOf or oneOf branch to follow: the first, or when
// minimal the first that is null or not a $ref (to end recursion).
func (g *schemaGen) branch(s gjson.Result, minimal bool) (gjson.Result, bool) {
	for _, key := range []string{"anyOf", "oneOf"} {
		alts := s.Get(key).Array()
		if len(alts) == 0 {
			continue
		}
		if minimal {
			for _, a := range alts {
				if t, _ := schemaTypes(a); t == "null" {
					return a, true
				}
			}
			for _, a := range alts {
				if !a.Get("$ref").Exists() {
					return a, true
				}
			}
		}
		return alts[0], true
	}
	return gjson.Result{}, false
}

// mergeAllOf returns s with its allOf branches (their $refs followed)
// merged in: properties and required joined, any other keyword from the
// first of s and the branches that has it.
func (g *schemaGen) mergeAllOf(s gjson.Result) gjson.Result {
	parts := []gjson.Result{s}
	for _, br := range s.Get("allOf").Array() {
		for i := 0; i <= maxSchemaRefs; i++ {
			ref := br.Get("$ref")
			if ref.Type != gjson.String {
				break
			}
			target, ok := g.resolve(ref.Str)
			if !ok {
				break
			}
			br = target
		}
		if br.IsObject() {
			parts = append(parts, br)
		}
	}
	var keys []string
	vals := map[string]string{}
	var propKeys []string
	props := map[string]string{}
	var required []string
	seenReq := map[string]bool{}
	for _, p := range parts {
		p.ForEach(func(k, v gjson.Result) bool {
			switch k.Str {
			case "allOf", "$ref":
			case "properties":
				v.ForEach(func(pk, pv gjson.Result) bool {
					if _, ok := props[pk.Str]; !ok {
						propKeys = append(propKeys, pk.Str)
						props[pk.Str] = pv.Raw
					}
					return true
				})
			case "required":
				v.ForEach(func(_, r gjson.Result) bool {
					if r.Type == gjson.String && !seenReq[r.Str] {
						seenReq[r.Str] = true
						required = append(required, r.Str)
					}
					return true
				})
			default:
				if _, ok := vals[k.Str]; !ok {
					keys = append(keys, k.Str)
					vals[k.Str] = v.Raw
				}
			}
			return true
		})
	}
	var b strings.Builder
	b.WriteByte('{')
	comma := func() {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
	}
	for _, k := range keys {
		comma()
		b.WriteString(jsonString(k) + ":" + vals[k])
	}
	if len(propKeys) > 0 {
		comma()
		b.WriteString(`"properties":{`)
		for i, k := range propKeys {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(k) + ":" + props[k])
		}
		b.WriteByte('}')
	}
	if len(required) > 0 {
		comma()
		b.WriteString(`"required":[`)
		for i, r := range required {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(jsonString(r))
		}
		b.WriteByte(']')
	}
	b.WriteByte('}')
	return gjson.Parse(b.String())
}

// resolve follows a $ref that is a JSON pointer into the root schema
// ("#", "#/$defs/Name", ...), decoding "~0", "~1" and %-escapes.
func (g *schemaGen) resolve(ref string) (gjson.Result, bool) {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return gjson.Result{}, false
	}
	if u, err := url.PathUnescape(frag); err == nil {
		frag = u
	}
	cur := g.root
	if frag == "" {
		return cur, true
	}
	if frag[0] != '/' {
		return gjson.Result{}, false // an anchor
	}
	for _, tok := range strings.Split(frag[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		var next gjson.Result
		switch {
		case cur.IsObject():
			next = members(cur, tok)[0]
		case cur.IsArray():
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 {
				return gjson.Result{}, false
			}
			arr := cur.Array()
			if i >= len(arr) {
				return gjson.Result{}, false
			}
			next = arr[i]
		}
		if !next.Exists() {
			return gjson.Result{}, false
		}
		cur = next
	}
	return cur, true
}

// object writes an object valid against s (see generateJSON).
func (g *schemaGen) object(b *strings.Builder, s gjson.Result, st genState) {
	props := map[string]gjson.Result{}
	var declared []string
	s.Get("properties").ForEach(func(k, v gjson.Result) bool {
		if _, dup := props[k.Str]; !dup {
			declared = append(declared, k.Str)
		}
		props[k.Str] = v
		return true
	})
	var keys []string
	chosen := map[string]bool{}
	add := func(k string) {
		if !chosen[k] {
			chosen[k] = true
			keys = append(keys, k)
		}
	}
	s.Get("required").ForEach(func(_, k gjson.Result) bool {
		if k.Type == gjson.String {
			add(k.Str)
		}
		return true
	})
	required := len(keys)
	if required == 0 && !st.minimal {
		for _, k := range declared {
			add(k)
		}
	}
	addl := s.Get("additionalProperties")
	if minProps := int(min(s.Get("minProperties").Int(), maxSchemaItems)); len(keys) < minProps {
		for _, k := range declared {
			if len(keys) >= minProps {
				break
			}
			add(k)
		}
		for n := 1; len(keys) < minProps && addl.Type != gjson.False && n < 2*maxSchemaItems; n++ {
			if k := "key" + strconv.Itoa(n); !chosen[k] {
				if _, declared := props[k]; !declared {
					add(k)
				}
			}
		}
	}
	if maxProps := s.Get("maxProperties"); maxProps.Type == gjson.Number && len(keys) > int(max(maxProps.Num, 0)) {
		keys = keys[:max(int(max(maxProps.Num, 0)), required)]
	}

	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		ps, ok := props[k]
		if !ok && addl.IsObject() {
			ps = addl
		}
		g.value(b, ps, st)
	}
	b.WriteByte('}')
}

// array writes an array valid against s (see generateJSON).
func (g *schemaGen) array(b *strings.Builder, s gjson.Result, st genState) {
	items := s.Get("items")
	prefix := s.Get("prefixItems").Array()
	if items.IsArray() { // draft 4 to 2019-09 tuples
		prefix, items = items.Array(), s.Get("additionalItems")
	}
	n := int(max(min(s.Get("minItems").Int(), maxSchemaItems), 0))
	if !st.minimal {
		n = max(n, len(prefix), 1)
	}
	if maxItems := s.Get("maxItems"); maxItems.Type == gjson.Number {
		n = min(n, int(max(maxItems.Num, 0)))
	}
	if items.Type == gjson.False {
		n = min(n, len(prefix))
	}
	unique := s.Get("uniqueItems").Type == gjson.True

	b.WriteByte('[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		item := items
		if i < len(prefix) {
			item = prefix[i]
		}
		ist := st
		if unique {
			ist.variant = st.variant + i
		}
		g.value(b, item, ist)
	}
	b.WriteByte(']')
}

// str returns a string valid against s (see generateJSON).
func (g *schemaGen) str(s gjson.Result, st genState) string {
	v, formatted := formatValue(s.Get("format").Str, g.text, st.variant)
	if !formatted {
		v = g.text
		if st.variant > 0 {
			v += " " + strconv.Itoa(st.variant+1)
		}
	}
	var re *regexp.Regexp
	if p := s.Get("pattern"); p.Type == gjson.String {
		re = g.pattern(p.Str)
	}
	minLen := int(max(min(s.Get("minLength").Int(), maxSchemaRunes), 0))
	maxLen := -1
	if m := s.Get("maxLength"); m.Type == gjson.Number {
		maxLen = int(max(m.Num, 0))
	}
	fit := func(v string) string {
		if n := utf8.RuneCountInString(v); n < minLen {
			filler := g.text
			if strings.TrimSpace(filler) == "" {
				filler = "mock"
			}
			var pad strings.Builder
			pad.WriteString(v)
			for n < minLen {
				if n > 0 {
					pad.WriteByte(' ')
					n++
				}
				pad.WriteString(filler)
				n += utf8.RuneCountInString(filler)
			}
			v = pad.String()
		}
		if maxLen >= 0 && utf8.RuneCountInString(v) > maxLen {
			v = string([]rune(v)[:maxLen])
		}
		return v
	}
	if re == nil {
		return fit(v)
	}
	if w := fit(v); re.MatchString(w) {
		return w
	}
	if p, err := syntax.Parse(re.String(), syntax.Perl); err == nil {
		var sample strings.Builder
		patternSample(&sample, p, 0)
		if w := sample.String(); re.MatchString(w) {
			if f := fit(w); re.MatchString(f) {
				return f
			}
			return w
		}
	}
	return fit(v)
}

// pattern compiles a pattern once per document; nil if Go's regexp
// cannot (lookarounds, backreferences).
func (g *schemaGen) pattern(p string) *regexp.Regexp {
	if re, ok := g.patterns[p]; ok {
		return re
	}
	if g.patterns == nil {
		g.patterns = map[string]*regexp.Regexp{}
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	g.patterns[p] = re
	return re
}

// patternSample writes a short string matching re: literals, the first
// alternative, a printable rune of each class, the minimum of each repeat
// (one for +).
func patternSample(b *strings.Builder, re *syntax.Regexp, depth int) {
	if depth > 32 || b.Len() > maxSchemaRunes {
		return
	}
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classRune(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
	case syntax.OpCapture, syntax.OpPlus:
		patternSample(b, re.Sub[0], depth+1)
	case syntax.OpRepeat:
		for i := 0; i < min(re.Min, maxSchemaRunes); i++ {
			patternSample(b, re.Sub[0], depth+1)
		}
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			patternSample(b, sub, depth+1)
		}
	case syntax.OpAlternate:
		patternSample(b, re.Sub[0], depth+1)
	}
}

// classRune picks a rune of a character class given as ranges: a letter,
// a digit or a common punctuation mark if the class has one, else its
// first printable rune.
func classRune(ranges []rune) rune {
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range "a0A-_ .x" {
		if in(r) {
			return r
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= 0x21 {
			return max(ranges[i], 0x21)
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'a'
}

// formatBase is the instant date and time formats start from.
var formatBase = time.Date(2024, 1, 1, 12, 0, 0, 0, time.UTC)

// formatValue returns a value of a string format, the variant-th of its
// kind, or false for a format the mock does not know.
func formatValue(format, text string, variant int) (string, bool) {
	n := strconv.Itoa(variant + 1)
	switch format {
	case "date-time":
		return formatBase.AddDate(0, 0, variant).Format(time.RFC3339), true
	case "date":
		return formatBase.AddDate(0, 0, variant).Format(time.DateOnly), true
	case "time":
		return formatBase.Add(time.Duration(variant) * time.Minute).Format("15:04:05Z"), true
	case "duration":
		return "PT" + n + "M", true
	case "email", "idn-email":
		return "mock" + n + "@example.com", true
	case "hostname", "idn-hostname":
		return "host" + n + ".example.com", true
	case "ipv4":
		return "192.0.2." + strconv.Itoa(1+variant%254), true
	case "ipv6":
		return "2001:db8::" + strconv.FormatInt(int64(1+variant%65535), 16), true
	case "uri", "iri", "uri-reference", "iri-reference", "uri-template":
		return "https://example.com/mock/" + n, true
	case "uuid":
		h := sha256.Sum256([]byte(text + "\x00" + n))
		h[6] = h[6]&0x0f | 0x40 // version 4
		h[8] = h[8]&0x3f | 0x80 // RFC 4122 variant
		x := hex.EncodeToString(h[:16])
		return x[:8] + "-" + x[8:12] + "-" + x[12:16] + "-" + x[16:20] + "-" + x[20:], true
	case "json-pointer":
		return "/mock/" + n, true
	case "relative-json-pointer":
		return strconv.Itoa(variant), true
	case "regex":
		return "^mock" + n + "$", true
	}
	return "", false
}

// number returns an integer or number valid against s (see generateJSON),
// as JSON text.
func (g *schemaGen) number(s gjson.Result, integer bool, st genState) string {
	rat := func(r gjson.Result) *big.Rat {
		if r.Type != gjson.Number {
			return nil
		}
		// Numbers with a huge exponent are ignored: exact arithmetic
		// on them could be made arbitrarily costly.
		if i := strings.IndexAny(r.Raw, "eE"); i >= 0 {
			if e, err := strconv.Atoi(strings.TrimPrefix(r.Raw[i+1:], "+")); err != nil || e > 400 || e < -400 {
				return nil
			}
		}
		v, ok := new(big.Rat).SetString(r.Raw)
		if !ok {
			return nil
		}
		return v
	}
	lo, hi := rat(s.Get("minimum")), rat(s.Get("maximum"))
	var loEx, hiEx bool
	if e := s.Get("exclusiveMinimum"); e.Type == gjson.True {
		loEx = lo != nil
	} else if v := rat(e); v != nil && (lo == nil || v.Cmp(lo) >= 0) {
		lo, loEx = v, true
	}
	if e := s.Get("exclusiveMaximum"); e.Type == gjson.True {
		hiEx = hi != nil
	} else if v := rat(e); v != nil && (hi == nil || v.Cmp(hi) <= 0) {
		hi, hiEx = v, true
	}
	step := rat(s.Get("multipleOf"))
	if step != nil && step.Sign() <= 0 {
		step = nil
	}
	if integer {
		if step == nil {
			step = big.NewRat(1, 1)
		} else {
			// k·p/q is an integer when q divides k: step by p.
			step = new(big.Rat).SetInt(step.Num())
		}
	}
	target := big.NewRat(int64(1+st.variant), 1)

	var v *big.Rat
	if step != nil {
		v = stepValue(target, step, lo, hi, loEx, hiEx)
	} else {
		v = rangeValue(target, lo, hi, loEx, hiEx)
	}
	if v == nil {
		v = target // no value fits: best effort
	}
	return ratJSON(v)
}

// stepValue returns the multiple of step nearest target within the bounds
// (a nil bound is open), or nil when there is none.
func stepValue(target, step, lo, hi *big.Rat, loEx, hiEx bool) *big.Rat {
	mul := func(k *big.Int) *big.Rat { return new(big.Rat).Mul(new(big.Rat).SetInt(k), step) }
	quo := func(x *big.Rat) *big.Rat { return new(big.Rat).Quo(x, step) }
	k := ceilRat(quo(target))
	if lo != nil {
		kmin := ceilRat(quo(lo))
		if loEx && mul(kmin).Cmp(lo) == 0 {
			kmin.Add(kmin, big.NewInt(1))
		}
		if k.Cmp(kmin) < 0 {
			k = kmin
		}
	}
	if hi != nil {
		kmax := floorRat(quo(hi))
		if hiEx && mul(kmax).Cmp(hi) == 0 {
			kmax.Sub(kmax, big.NewInt(1))
		}
		if k.Cmp(kmax) > 0 {
			k = kmax
		}
	}
	if v := mul(k); inRange(v, lo, hi, loEx, hiEx) {
		return v
	}
	return nil
}

// rangeValue returns target if it lies within the bounds, else the bound
// it passes (or a point inside an exclusive one), or nil when the range
// is empty.
func rangeValue(target, lo, hi *big.Rat, loEx, hiEx bool) *big.Rat {
	if inRange(target, lo, hi, loEx, hiEx) {
		return target
	}
	one := big.NewRat(1, 1)
	var cands []*big.Rat
	if lo != nil {
		cands = append(cands, lo, new(big.Rat).Add(lo, one))
	}
	if hi != nil {
		cands = append(cands, hi, new(big.Rat).Sub(hi, one))
	}
	if lo != nil && hi != nil {
		mid := new(big.Rat).Add(lo, hi)
		cands = append(cands, mid.Quo(mid, big.NewRat(2, 1)))
	}
	for _, c := range cands {
		if inRange(c, lo, hi, loEx, hiEx) {
			return c
		}
	}
	return nil
}

// inRange reports whether v lies within the bounds (a nil bound is open).
func inRange(v, lo, hi *big.Rat, loEx, hiEx bool) bool {
	if lo != nil {
		if c := v.Cmp(lo); c < 0 || c == 0 && loEx {
			return false
		}
	}
	if hi != nil {
		if c := v.Cmp(hi); c > 0 || c == 0 && hiEx {
			return false
		}
	}
	return true
}

// ceilRat and floorRat round a rational to an integer.
func ceilRat(x *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(x.Num(), x.Denom(), new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

func floorRat(x *big.Rat) *big.Int {
	q, _ := new(big.Int).DivMod(x.Num(), x.Denom(), new(big.Int))
	return q
}

// ratJSON writes v as an exact JSON number: an integer, or a decimal
// fraction (every value the generator makes has a power-of-ten
// denominator's divisor, as it comes from decimal JSON numbers).
func ratJSON(v *big.Rat) string {
	if v.IsInt() {
		return v.Num().String()
	}
	ten := big.NewInt(10)
	scaled := new(big.Rat).Set(v)
	for digits := 1; digits <= 64; digits++ {
		scaled.Mul(scaled, new(big.Rat).SetInt(ten))
		if scaled.IsInt() {
			return v.FloatString(digits)
		}
	}
	f, _ := v.Float64()
	return strconv.FormatFloat(f, 'g', -1, 64)
}
