package vmodels

import (
	"errors"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/request/apierr"
)

// listings is a fake Listings: provider → its listed models; a provider
// absent from the map has not listed yet.
type listings map[string][]string

func (l listings) Lists(provider, model string) (listed, known bool) {
	ms, known := l[provider]
	for _, m := range ms {
		if m == model {
			return true, true
		}
	}
	return false, known
}

// TestPutRefusesTargetsTheirProviderDoesNotList: a target naming a model
// its provider's known listing lacks is refused (ErrInvalid, param the
// target's model, message naming provider and model); one whose provider
// has not listed yet is accepted and named by Unverified; a target that
// chains to another virtual model is not a provider model and is not
// checked.
func TestPutRefusesTargetsTheirProviderDoesNotList(t *testing.T) {
	s, err := New(Options{Providers: testProviders, Listings: listings{"a": {"x"}, "b": {"y"}}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Put(VirtualModel{Source: "n", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "b", Model: "typo"}}}, "")
	if !errors.Is(err, ErrInvalid) || apierr.ParamOf(err) != "targets[1].model" || !strings.Contains(err.Error(), `"b"`) ||
		!strings.Contains(err.Error(), `"typo"`) {
		t.Fatalf("unlisted target: %v (param %q)", err, apierr.ParamOf(err))
	}
	if len(s.List()) != 0 {
		t.Fatalf("the refused row is in force: %+v", s.List())
	}
	ok := VirtualModel{Source: "n", Targets: []Target{{Provider: "a", Model: "x"}, {Provider: "c", Model: "anything"}}}
	if _, err := s.Put(ok, ""); err != nil {
		t.Fatalf("listed target and a provider not listed yet: %v", err)
	}
	if w := s.Unverified(ok); len(w) != 1 || !strings.Contains(w[0], "targets[1]") || !strings.Contains(w[0], `"c"`) {
		t.Fatalf("unverified %q", w)
	}
	if _, err := s.Put(VirtualModel{Source: "a/alias", Targets: []Target{{Provider: "b", Model: "y"}}}, ""); err != nil {
		t.Fatal(err)
	}
	// a does not list "alias", but a/alias is a virtual model.
	if _, err := s.Put(VirtualModel{Source: "outer", Targets: []Target{{Provider: "a", Model: "alias"}}}, ""); err != nil {
		t.Fatalf("a chained target was checked as a provider model: %v", err)
	}
}

// TestUnlistedManagedWarns: configuration rows are put in force whatever
// the listings say; UnlistedManaged names their targets that a known
// listing lacks.
func TestUnlistedManagedWarns(t *testing.T) {
	s, err := New(Options{Providers: testProviders, Listings: listings{"a": {"x"}},
		Managed: List{{Source: "good", Targets: []Target{{Provider: "a", Model: "x"}}},
			{Source: "bad", Targets: []Target{{Provider: "a", Model: "typo"}}},
			{Source: "early", Targets: []Target{{Provider: "b", Model: "y"}}}}})
	if err != nil {
		t.Fatalf("configuration refused: %v", err)
	}
	w := s.UnlistedManaged()
	if len(w) != 1 || !strings.Contains(w[0], `"bad"`) || !strings.Contains(w[0], `"typo"`) {
		t.Fatalf("warnings %q", w)
	}
	if _, ok, _ := s.Resolve("bad", "/", "", nil); !ok {
		t.Fatal("the configuration row is not in force")
	}
}
