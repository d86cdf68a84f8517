package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/modelgate/modelgate/internal/gateway/providers"
)

// TestEnvRegistrationReadsTheTypeTable registers every type of the
// provider-type table through its own variables.
func TestEnvRegistrationReadsTheTypeTable(t *testing.T) {
	registrable := 0
	for _, ti := range providers.Types() {
		if ti.EnvPrefix == "" {
			// Not registrable: even its would-be variables register nothing.
			up := strings.ToUpper(ti.Name)
			env, err := FromEnv([]string{up + "_API_KEY=k", up + "_BASE_URL=http://x", up + "_X_API_KEY=k"})
			if err != nil || len(env.Config.Providers) != 0 {
				t.Errorf("%s: registered %+v (%v)", ti.Name, env.Config.Providers, err)
			}
			continue
		}
		registrable++
		p := ti.EnvPrefix
		env, err := FromEnv([]string{p + "_API_KEY=k1", p + "_TEAM_B_API_KEY=k2", p + "_TEAM_B_BASE_URL=https://b.example/v1"})
		if err != nil {
			t.Fatalf("%s: %v", ti.Name, err)
		}
		want := Providers{
			{Name: ti.Name, Type: ti.Name, APIKey: "k1"},
			{Name: ti.Name + "-team-b", Type: ti.Name, APIKey: "k2", BaseURL: "https://b.example/v1"},
		}
		if !reflect.DeepEqual(env.Config.Providers, want) {
			t.Errorf("%s: providers %+v, want %+v", ti.Name, env.Config.Providers, want)
		}

		// A base URL alone registers a type that needs no key, and is
		// the type default of one that needs a key.
		env, err = FromEnv([]string{p + "_BASE_URL=https://alone.example/v1"})
		if err != nil {
			t.Fatalf("%s: %v", ti.Name, err)
		}
		if ti.NeedsKey {
			if len(env.Config.Providers) != 0 || env.DefaultBaseURLs[ti.Name] != "https://alone.example/v1" {
				t.Errorf("%s: base URL alone gave %+v, defaults %v", ti.Name, env.Config.Providers, env.DefaultBaseURLs)
			}
		} else if want := (Providers{{Name: ti.Name, Type: ti.Name, BaseURL: "https://alone.example/v1"}}); !reflect.DeepEqual(env.Config.Providers, want) ||
			env.DefaultBaseURLs != nil {
			t.Errorf("%s: base URL alone gave %+v, defaults %v", ti.Name, env.Config.Providers, env.DefaultBaseURLs)
		}
	}
	if registrable != 12 {
		t.Errorf("%d types registrable from the environment, want 12", registrable)
	}
}

func TestEnvInstanceSplitsOnTheLongestPrefix(t *testing.T) {
	types := []providers.TypeInfo{{Name: "a", EnvPrefix: "A"}, {Name: "a-b", EnvPrefix: "A_B"}}
	for _, c := range []struct {
		rest, typ, suffix string
		ok                bool
	}{
		{"A_X", "a", "X", true},
		{"A_B_X", "a-b", "X", true},
		{"a_b_x", "a-b", "x", true},
		{"A_B", "a", "B", true},
		{"A_", "", "", false},
		{"A", "", "", false},
		{"AB_X", "", "", false},
	} {
		ti, suffix, ok := envInstance(types, c.rest)
		if ok != c.ok || ti.Name != c.typ || suffix != c.suffix {
			t.Errorf("%q: got %q %q %v", c.rest, ti.Name, suffix, ok)
		}
	}
}
