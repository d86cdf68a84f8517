package keys

import (
	"net/http"
	"strings"
	"testing"
)

// FuzzCredential checks credential parsing and authentication on arbitrary
// Authorization and x-api-key values: no panic, a returned credential is
// trimmed and taken from the header that wins (Authorization whenever it
// is present), two headers are reported as conflicting exactly when the
// winner's key differs from the other's, and only the exact master key or
// managed key authenticates.
//
// Bounded run: go test -run x -fuzz FuzzCredential -fuzztime 10s ./keys
func FuzzCredential(f *testing.F) {
	const master = "master-secret"
	s, err := Open(newMem(), Options{})
	if err != nil {
		f.Fatal(err)
	}
	_, managed, err := s.Create(NewKey{Name: "fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	a := NewAuthenticator(master)
	a.UseKeys(s)

	for _, seed := range [][2]string{
		{"", ""}, {"Bearer " + master, ""}, {"bearer  " + master + " ", ""}, {"", master},
		{"Bearer " + managed, "other"}, {"Basic abc", master}, {"Bearer ", master}, {"Bearer", ""},
		{"BEARER\t" + managed, ""}, {"Bearer a b", ""}, {" Bearer x", ""}, {"Bearer \x00", "\xff"},
		{"", "  " + managed + "\t"}, {"Token " + managed, managed},
		{"Bearer " + managed, managed}, {"Bearer " + master, " " + master + " "}, {"Bearer ", "x"}, {" ", master}, {"0", "\x000"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, authz, apiKey string) {
		h := http.Header{}
		if authz != "" {
			h["Authorization"] = []string{authz}
		}
		if apiKey != "" {
			h["X-Api-Key"] = []string{apiKey}
		}
		cred, sent := Credential(h)
		// One Authorization and one x-api-key never conflict:
		// Authorization wins (checked below).
		if ConflictingCredentials(h) {
			t.Fatalf("Authorization %q and x-api-key %q reported as conflicting", authz, apiKey)
		}
		if cred != strings.TrimSpace(cred) {
			t.Fatalf("credential %q is not trimmed", cred)
		}
		if cred != "" && !sent {
			t.Fatalf("credential %q returned as not sent", cred)
		}
		switch {
		case authz != "":
			if cred != "" && !strings.Contains(authz, cred) {
				t.Fatalf("credential %q not from Authorization %q", cred, authz)
			}
			scheme, token, ok := strings.Cut(authz, " ")
			if ok && strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != "" {
				if cred != strings.TrimSpace(token) {
					t.Fatalf("Authorization %q gave %q", authz, cred)
				}
			} else if cred != "" {
				t.Fatalf("unusable Authorization %q gave %q", authz, cred)
			}
		default:
			if cred != strings.TrimSpace(apiKey) || sent != (cred != "") {
				t.Fatalf("x-api-key %q gave %q, %v", apiKey, cred, sent)
			}
		}
		res := a.Authenticate(cred)
		if len(res.KeyHash) != 64 {
			t.Fatalf("hash %q", res.KeyHash)
		}
		switch {
		case cred == master:
			if !res.OK || !res.Master || !res.Admin {
				t.Fatalf("master key refused: %+v", res)
			}
		case cred == managed:
			if !res.OK || res.Master || res.Admin || res.KeyID == "" {
				t.Fatalf("managed key: %+v", res)
			}
		default:
			if res.OK || res.Refusal != RefusedInvalid || res.KeyID != "" {
				t.Fatalf("%q accepted: %+v", cred, res)
			}
		}
		if LooksManaged(cred) != (len(cred) == KeyLen && strings.HasPrefix(cred, KeyPrefix) &&
			strings.Trim(cred[len(KeyPrefix):], base62) == "") {
			t.Fatalf("LooksManaged(%q) is wrong", cred)
		}
	})
}
