package handlers

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"
)

// architectureDoc is the page that describes the request chain.
const architectureDoc = "../../../docs/architecture.md"

// docChain returns the handler names of the first ```chain fenced block
// of the markdown text, one per line.
func docChain(text string) (names []string, found bool) {
	in := false
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case !in && line == "```chain":
			in, found = true, true
		case in && strings.HasPrefix(line, "```"):
			return names, found
		case in && line != "":
			names = append(names, line)
		}
	}
	return names, found
}

// TestArchitectureDocChain: the chain order docs/architecture.md lists is
// the order the code registers (chain), so the page cannot go stale.
func TestArchitectureDocChain(t *testing.T) {
	b, err := os.ReadFile(architectureDoc)
	if err != nil {
		t.Fatal(err)
	}
	got, found := docChain(string(b))
	if !found {
		t.Fatalf("%s has no ```chain block listing the handler order", architectureDoc)
	}
	if !slices.Equal(got, chain) {
		t.Errorf("%s lists the chain as\n\t%s\nbut the code's order (chain in caddyfile.go) is\n\t%s",
			architectureDoc, strings.Join(got, " "), strings.Join(chain, " "))
	}
}

func TestDocChainParse(t *testing.T) {
	got, found := docChain("text\n```chain\na\n\nb\n```\n```chain\nc\n```\n")
	if !found || !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("docChain = %q, %v; want [a b], true", got, found)
	}
	if _, found := docChain("```go\na\n```\n"); found {
		t.Error("docChain found a chain block in a go block")
	}
}
