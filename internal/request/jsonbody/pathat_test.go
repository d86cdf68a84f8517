package jsonbody

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestPathAt: the path of the value encoding/json refused, with array
// indexes, whatever the value's JSON type and the white space around it.
func TestPathAt(t *testing.T) {
	type inner struct {
		Weight float64  `json:"weight"`
		Tags   []string `json:"tags"`
	}
	type outer struct {
		Name    string  `json:"name"`
		Targets []inner `json:"targets"`
		Nested  struct {
			Deep []inner `json:"deep"`
		} `json:"nested"`
	}
	for body, want := range map[string]string{
		`{"name":5}`:           "name",
		`{"name":{"a":[1,2]}}`: "name",
		`{"name":[1]}`:         "name",
		`{ "targets" : [ {"weight":1}, {"weight":"x"} ] }`:       "targets[1].weight",
		`{"targets":[{"weight":1},{"weight":{}}]}`:               "targets[1].weight",
		`{"targets":[{"tags":["a","b",3]}]}`:                     "targets[0].tags[2]",
		`{"targets":[{"weight":2,"tags":[]},"x"]}`:               "targets[1]",
		`{"name":"a","nested":{"deep":[{},{},{"weight":true}]}}`: "nested.deep[2].weight",
		`{"targets":{"weight":1}}`:                               "targets",
	} {
		var dst outer
		err := json.Unmarshal([]byte(body), &dst)
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) {
			t.Fatalf("%s: %v, want a type error", body, err)
		}
		if got := pathAt([]byte(body), te.Offset); got != want {
			t.Errorf("%s: path %q (offset %d, field %q), want %q", body, got, te.Offset, te.Field, want)
		}
	}
}
