package catalog

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// Field names the catalog JSON must use, exactly (model metadata, pricing
// object, pricing tier, ranking).
var (
	specMetadata = []string{"capabilities", "categories", "context_window", "description",
		"display_name", "family", "max_output_tokens", "modes", "pricing", "pricing_sources",
		"rankings", "tags"}
	specPricing = []string{"audio_input_per_mtok", "audio_output_per_mtok", "batch_input_per_mtok",
		"batch_output_per_mtok", "cache_write_per_mtok", "cached_input_per_mtok", "currency",
		"input_per_image", "input_per_mtok", "output_per_mtok", "per_character_input", "per_image",
		"per_page", "per_request", "per_second_input", "per_second_output",
		"reasoning_output_per_mtok", "tiers"}
	specTier    = []string{"input_per_mtok", "output_per_mtok", "up_to_mtok", "up_to_tokens"}
	specRanking = []string{"as_of", "elo", "rank"}
)

// fill sets every field of the struct v points to to a non-zero value.
func fill(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		fv := v.Field(i)
		switch fv.Kind() {
		case reflect.Pointer:
			fv.Set(reflect.New(fv.Type().Elem()))
			if fv.Elem().Kind() == reflect.Struct {
				fill(fv.Elem())
			} else if fv.Elem().CanInt() {
				fv.Elem().SetInt(1)
			} else {
				fv.Elem().SetFloat(1)
			}
		case reflect.String:
			fv.SetString("x")
		case reflect.Int, reflect.Int64:
			fv.SetInt(1)
		case reflect.Float64:
			fv.SetFloat(1)
		case reflect.Slice:
			s := reflect.MakeSlice(fv.Type(), 1, 1)
			if s.Index(0).Kind() == reflect.Struct {
				fill(s.Index(0))
			} else {
				s.Index(0).SetString("x")
			}
			fv.Set(s)
		case reflect.Map:
			m := reflect.MakeMap(fv.Type())
			ev := reflect.New(fv.Type().Elem()).Elem()
			switch ev.Kind() {
			case reflect.Struct:
				fill(ev)
			case reflect.Bool:
				ev.SetBool(true)
			case reflect.String:
				ev.SetString("x")
			}
			m.SetMapIndex(reflect.ValueOf("k"), ev)
			fv.Set(m)
		}
	}
}

func keysOf(t *testing.T, raw json.RawMessage) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestJSONFieldNamesMatchSpec(t *testing.T) {
	var m Metadata
	fill(reflect.ValueOf(&m).Elem())
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		t.Fatal(err)
	}
	var tiers []json.RawMessage
	if err := json.Unmarshal(keysRaw(t, top["pricing"])["tiers"], &tiers); err != nil || len(tiers) != 1 {
		t.Fatalf("tiers: %v", err)
	}
	checks := []struct {
		what string
		raw  json.RawMessage
		want []string
	}{
		{"metadata", raw, specMetadata},
		{"pricing", top["pricing"], specPricing},
		{"tier", tiers[0], specTier},
		{"ranking", keysRaw(t, top["rankings"])["k"], specRanking},
	}
	for _, c := range checks {
		want := slices.Sorted(slices.Values(c.want))
		if got := keysOf(t, c.raw); !slices.Equal(got, want) {
			t.Errorf("%s keys:\n got %s\nwant %s", c.what, strings.Join(got, ","), strings.Join(want, ","))
		}
	}
}

func keysRaw(t *testing.T, raw json.RawMessage) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestJSONOmitsAbsentFields(t *testing.T) {
	for _, v := range []any{Metadata{}, Pricing{}, Tier{}} {
		raw, err := json.Marshal(v)
		if err != nil || string(raw) != "{}" {
			t.Errorf("%T{} marshals to %s, %v; want {}", v, raw, err)
		}
	}
	zero := 0.0
	raw, _ := json.Marshal(Pricing{InputPerMTok: &zero})
	if string(raw) != `{"input_per_mtok":0}` {
		t.Errorf("explicit zero price marshals to %s", raw)
	}
}

func TestJSONRoundTripOfCatalogEntry(t *testing.T) {
	m, _ := Lookup("gemini", "gemini-2.5-pro")
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Metadata
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, m) {
		t.Errorf("round trip changed the metadata:\n%s", raw)
	}
}
