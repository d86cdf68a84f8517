package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/modelgate/modelgate/internal/domain/vmodels"
)

// LoadYAMLFile reads and strictly decodes a YAML config file. Unknown keys
// are errors; messages keep yaml's "line N:" and are prefixed with the file
// path. An empty file is an empty Config.
func LoadYAMLFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("config file: %w", err)
	}
	c, err := ParseYAML(data)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseYAML strictly decodes one YAML document into a Config. Unknown keys,
// at any depth, are errors naming the line; so are numbers with a
// fraction where an integer belongs, and invalid entries of the typed
// sections (rate_limits rule lists, virtual_models, failover), each named
// by line and setting. Empty input is an empty Config.
func ParseYAML(data []byte) (Config, error) {
	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return Config{}, nil
		}
		return Config{}, nameSettings(err, data)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return Config{}, err
		}
		return Config{}, fmt.Errorf("yaml: line %d: the config must be a single YAML document", extra.Line)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Config{}, err
	}
	if errs := append(fractionalInts(&doc, reflect.TypeFor[Config](), ""), explicitZeros(&doc)...); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	if probs := c.problems(); len(probs) > 0 {
		errs := make([]error, len(probs))
		for i, p := range probs {
			errs[i] = fmt.Errorf("yaml: line %d: %w", lineAt(&doc, p.path), p.err)
		}
		return Config{}, errors.Join(errs...)
	}
	return c, nil
}

// problems reports the invalid entries of the typed sections, located in
// the document.
func (c Config) problems() []problem {
	probs := c.RateLimits.problems()
	for _, vl := range []struct {
		path []any
		name string
		list vmodels.List
	}{{[]any{"virtual_models"}, "virtual_models", c.VirtualModels}, {[]any{"admin", "virtual_models"}, "admin.virtual_models", c.Admin.VirtualModels}} {
		for _, p := range vl.list.Problems() {
			probs = append(probs, problem{append(slices.Clone(vl.path), p.Index), fmt.Errorf("%s%w", vl.name, p.Err)})
		}
	}
	for _, p := range c.Failover.Problems() {
		probs = append(probs, problem{[]any{"failover", p.Key}, fmt.Errorf("failover%w", p.Err)})
	}
	return probs
}

// lineAt returns the line of the node at path (mapping keys and sequence
// indexes) in doc, or of the deepest node on the way that exists.
func lineAt(doc *yaml.Node, path []any) int {
	n := documentRoot(doc)
	for _, step := range path {
		next := childAt(n, step)
		if next == nil {
			break
		}
		n = next
	}
	return n.Line
}

// documentRoot is the top value of doc (the node itself when it is not a
// document), aliases resolved.
func documentRoot(doc *yaml.Node) *yaml.Node {
	n := resolveAlias(doc)
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = resolveAlias(n.Content[0])
	}
	return n
}

// childAt returns the child of n that step names, or nil.
func childAt(n *yaml.Node, step any) *yaml.Node {
	switch s := step.(type) {
	case int:
		if n.Kind == yaml.SequenceNode && s >= 0 && s < len(n.Content) {
			return resolveAlias(n.Content[s])
		}
	case string:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == s {
					return resolveAlias(n.Content[i+1])
				}
			}
		}
	}
	return nil
}

// fractionalInts reports numbers with a fraction (such as 1.5) written
// where t wants an integer: yaml would silently truncate them. It follows
// struct fields by their yaml names, sequences and mapping values; nodes
// that do not have the shape of t are left to the decoder.
func fractionalInts(n *yaml.Node, t reflect.Type, at string) []error {
	n = resolveAlias(n)
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		return fractionalInts(n.Content[0], t, at)
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var errs []error
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			if f, err := strconv.ParseFloat(n.Value, 64); err != nil || f != math.Trunc(f) {
				errs = append(errs, fmt.Errorf("yaml: line %d: %s: %s is not an integer", n.Line, at, n.Value))
			}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind == yaml.SequenceNode {
			for i, e := range n.Content {
				errs = append(errs, fractionalInts(e, t.Elem(), fmt.Sprintf("%s[%d]", at, i))...)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				errs = append(errs, fractionalInts(n.Content[i+1], t.Elem(), joinSetting(at, n.Content[i].Value))...)
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
				fields[name] = t.Field(i).Type
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if ft, ok := fields[n.Content[i].Value]; ok {
				errs = append(errs, fractionalInts(n.Content[i+1], ft, joinSetting(at, n.Content[i].Value))...)
			}
		}
	}
	return errs
}

// nameSettings puts the name of the setting a value belongs to into
// yaml's type errors, which give only a line and Go's type: "line 2:
// cannot unmarshal !!str `maybe` into bool" becomes "line 2:
// admin.ui_enabled: cannot unmarshal !!str `maybe` into bool". The
// setting is the one whose value of the error's kind (a scalar, a
// mapping, a sequence) is on that line, the innermost when nested ones
// start there; a line holding unrelated values of that kind (flow style)
// keeps yaml's message. Other errors are returned as they are.
func nameSettings(err error, data []byte) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return err
	}
	lines := map[yaml.Kind]map[int][]string{yaml.ScalarNode: {}, yaml.MappingNode: {}, yaml.SequenceNode: {}}
	settingLines(&doc, "", lines)
	out := make([]string, len(te.Errors))
	for i, msg := range te.Errors {
		out[i] = msg
		var line int
		if _, e := fmt.Sscanf(msg, "line %d:", &line); e != nil {
			continue
		}
		rest := strings.TrimPrefix(msg, fmt.Sprintf("line %d: ", line))
		kind := yaml.ScalarNode
		switch {
		case !strings.HasPrefix(rest, "cannot unmarshal "):
			continue
		case strings.HasPrefix(rest, "cannot unmarshal !!seq"):
			kind = yaml.SequenceNode
		case strings.HasPrefix(rest, "cannot unmarshal !!map"):
			kind = yaml.MappingNode
		}
		if name, ok := innermost(lines[kind][line]); ok {
			out[i] = fmt.Sprintf("line %d: %s: %s", line, name, rest)
		}
	}
	return &yaml.TypeError{Errors: out}
}

// innermost returns the last of names when each one lies inside the one
// before it, as nested values starting on one line do.
func innermost(names []string) (string, bool) {
	if len(names) == 0 {
		return "", false
	}
	for i := 1; i < len(names); i++ {
		if !strings.HasPrefix(names[i], names[i-1]+".") && !strings.HasPrefix(names[i], names[i-1]+"[") {
			return "", false
		}
	}
	return names[len(names)-1], true
}

// settingLines records the dotted name of every value under n (itself
// the value of setting at) by kind and line, outer values before the
// values inside them. Aliases are not followed: an error in an anchored
// value is reported at the anchor.
func settingLines(n *yaml.Node, at string, lines map[yaml.Kind]map[int][]string) {
	add := func(name string, v *yaml.Node) {
		if m := lines[v.Kind]; m != nil {
			m[v.Line] = append(m[v.Line], name)
			settingLines(v, name, lines)
		}
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			settingLines(c, at, lines)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			add(joinSetting(at, n.Content[i].Value), n.Content[i+1])
		}
	case yaml.SequenceNode:
		for i, e := range n.Content {
			add(fmt.Sprintf("%s[%d]", at, i), e)
		}
	}
}

// zeroMeansDefault lists, by section, the settings whose zero value stands
// for "not set": a 0 written in the file would silently become the
// default, so it is refused instead. The environment refuses 0 for the
// same settings.
var zeroMeansDefault = map[string][]string{
	"server":    {"max_request_body_bytes", "models_refresh_seconds", "models_timeout_seconds"},
	"providers": {"timeout_seconds", "read_idle_timeout_ms", "max_response_bytes", "max_event_bytes"},
}

// explicitZeros reports the settings of zeroMeansDefault written as 0 in
// doc: in server, and in every provider of providers.
func explicitZeros(doc *yaml.Node) []error {
	root := documentRoot(doc)
	var errs []error
	check := func(m *yaml.Node, at string, names []string) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			k, v := m.Content[i].Value, resolveAlias(m.Content[i+1])
			if !slices.Contains(names, k) || v.Kind != yaml.ScalarNode {
				continue
			}
			zero := false
			switch v.ShortTag() {
			case "!!int":
				n, err := strconv.ParseInt(v.Value, 0, 64)
				zero = err == nil && n == 0
			case "!!float":
				f, err := strconv.ParseFloat(v.Value, 64)
				zero = err == nil && f == 0
			}
			if zero {
				errs = append(errs, fmt.Errorf("yaml: line %d: %s.%s: must be positive, got 0 (leave the setting out for the default)", v.Line, at, k))
			}
		}
	}
	check(childAt(root, "server"), "server", zeroMeansDefault["server"])
	if ps := childAt(root, "providers"); ps != nil && ps.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(ps.Content); i += 2 {
			check(resolveAlias(ps.Content[i+1]), "providers."+ps.Content[i].Value, zeroMeansDefault["providers"])
		}
	}
	return errs
}

// joinSetting appends a key to a dotted setting name.
func joinSetting(at, key string) string {
	if at == "" {
		return key
	}
	return at + "." + key
}

// UnmarshalYAML decodes a mapping from provider name to settings, keeping
// the key order and filling Name from the key. It is as strict as the rest
// of the file: unknown keys inside a provider and repeated names are errors
// naming the line. A provider with no settings (`ollama:`) is allowed.
func (ps *Providers) UnmarshalYAML(value *yaml.Node) error {
	value = resolveAlias(value)
	if value.Kind == yaml.ScalarNode && value.ShortTag() == "!!null" {
		*ps = nil
		return nil
	}
	if value.Kind != yaml.MappingNode {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf(
			"line %d: providers must be a mapping of provider name to settings", value.Line)}}
	}
	var problems []string
	out := make(Providers, 0, len(value.Content)/2)
	seen := map[string]int{}
	for i := 0; i+1 < len(value.Content); i += 2 {
		k, v := value.Content[i], resolveAlias(value.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			problems = append(problems, fmt.Sprintf("line %d: a provider name must be a string", k.Line))
			continue
		}
		if line, dup := seen[k.Value]; dup {
			problems = append(problems, fmt.Sprintf(
				"line %d: provider %q already defined at line %d", k.Line, k.Value, line))
			continue
		}
		seen[k.Value] = k.Line
		p := Provider{Name: k.Value}
		switch {
		case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
			// No settings: everything comes from defaults and the name.
		case v.Kind == yaml.MappingNode:
			if unknown := unknownKeys(v, providerFields()); len(unknown) > 0 {
				problems = append(problems, unknown...)
				continue
			}
			if err := v.Decode(&p); err != nil {
				var te *yaml.TypeError
				if errors.As(err, &te) {
					problems = append(problems, te.Errors...)
					continue
				}
				return err
			}
			p.Name = k.Value
		default:
			problems = append(problems, fmt.Sprintf(
				"line %d: provider %q: settings must be a mapping", v.Line, k.Value))
			continue
		}
		out = append(out, p)
	}
	if len(problems) > 0 {
		return &yaml.TypeError{Errors: problems}
	}
	*ps = out
	return nil
}

// MarshalYAML writes the providers as a mapping from name to settings, in
// order, so that ParseYAML reads back the same list.
func (ps Providers) MarshalYAML() (any, error) {
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, p := range ps {
		var v yaml.Node
		if err := v.Encode(p); err != nil {
			return nil, fmt.Errorf("provider %q: %w", p.Name, err)
		}
		k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: p.Name}
		m.Content = append(m.Content, k, &v)
	}
	return m, nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// unknownKeys reports, in yaml's own words, the keys of mapping n that are
// not in known. Merge keys (<<) are followed so that settings shared
// through anchors are checked too.
func unknownKeys(n *yaml.Node, known map[string]bool) []string {
	var out []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolveAlias(n.Content[i+1])
		if k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.ShortTag() == "!!merge") {
			merged := []*yaml.Node{v}
			if v.Kind == yaml.SequenceNode {
				merged = v.Content
			}
			for _, m := range merged {
				if m = resolveAlias(m); m.Kind == yaml.MappingNode {
					out = append(out, unknownKeys(m, known)...)
				}
			}
			continue
		}
		if !known[k.Value] {
			out = append(out, fmt.Sprintf("line %d: field %s not found in type config.Provider", k.Line, k.Value))
		}
	}
	return out
}

// providerFields returns the YAML keys a provider accepts.
func providerFields() map[string]bool {
	known := map[string]bool{}
	t := reflect.TypeFor[Provider]()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if name != "" && name != "-" {
			known[name] = true
		}
	}
	return known
}
