package modelgate

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mdLink matches an inline markdown link or image target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// slugDrop is what GitHub's heading anchors drop: everything but letters,
// digits, '_', '-' and spaces.
var slugDrop = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)

// slug is the anchor GitHub gives a heading: lower-cased, punctuation but
// '-' and '_' dropped, each space a '-'.
func slug(heading string) string {
	s := slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(heading)), "")
	return strings.ReplaceAll(s, " ", "-")
}

// anchors returns the anchors of a markdown text's headings, outside
// fenced code blocks; a repeated heading gets -1, -2, ... as on GitHub.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		h := strings.TrimLeft(line, "#")
		if !strings.HasPrefix(h, " ") {
			continue
		}
		a := slug(h)
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// links returns the link targets of a markdown text, outside fenced code
// blocks.
func links(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// TestDocLinks: every relative link in README.md and docs/*.md names a
// file of the repository, and every #anchor a heading of its page, so
// moving a section cannot leave a dangling link behind.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no docs/*.md pages")
	}
	pages = append([]string{"README.md"}, pages...)
	texts := map[string]string{}
	read := func(p string) (string, error) {
		if s, ok := texts[p]; ok {
			return s, nil
		}
		b, err := os.ReadFile(p)
		texts[p] = string(b)
		return string(b), err
	}
	checked := 0
	for _, page := range pages {
		text, err := read(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range links(text) {
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			checked++
			file, anchor, _ := strings.Cut(target, "#")
			dest := page
			if file != "" {
				dest = path.Clean(path.Join(path.Dir(page), file))
				if strings.HasPrefix(dest, "../") || path.IsAbs(file) {
					t.Errorf("%s: link %q leaves the repository", page, target)
					continue
				}
				if _, err := os.Stat(dest); err != nil {
					t.Errorf("%s: link %q: %s does not exist", page, target, dest)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q: anchor into a file that is not markdown", page, target)
				continue
			}
			destText, err := read(dest)
			if err != nil {
				t.Errorf("%s: link %q: %v", page, target, err)
				continue
			}
			if !anchors(destText)[anchor] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", page, target, dest, anchor)
			}
		}
	}
	if checked == 0 {
		t.Error("no relative links found: the parser is broken")
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"Virtual models, failover and model access": "virtual-models-failover-and-model-access",
		"YAML (`config_file`)":                      "yaml-config_file",
		"GET /v1/usage":                             "get-v1usage",
		"The mock provider and mockupstream":        "the-mock-provider-and-mockupstream",
		" Rate-limit rules ":                        "rate-limit-rules",
	} {
		if got := slug(in); got != want {
			t.Errorf("slug(%q) = %q, want %q", in, got, want)
		}
	}
	a := anchors("# A\n## A\n```\n# B\n```\n")
	if !a["a"] || !a["a-1"] || a["b"] {
		t.Errorf("anchors = %v, want a and a-1 but not b", a)
	}
}
