package caddymodule

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// read_body_timeout sets the bound on sending a request body; without it,
// or in JSON at zero, the default applies; zero or negative in the
// Caddyfile is an error.
func TestReadBodyTimeout(t *testing.T) {
	app, err := parse(t, "modelgate {\n read_body_timeout 90s\n}")
	if err != nil {
		t.Fatal(err)
	}
	if got := app.EffectiveReadBodyTimeout(); got != 90*time.Second {
		t.Errorf("configured: %s", got)
	}
	var fromJSON App
	if err := json.Unmarshal([]byte(`{"read_body_timeout":"45s","storage":"x.db"}`), &fromJSON); err != nil ||
		fromJSON.EffectiveReadBodyTimeout() != 45*time.Second || fromJSON.Storage != "x.db" {
		t.Errorf("JSON: %v %s", err, fromJSON.EffectiveReadBodyTimeout())
	}
	if got := new(App).EffectiveReadBodyTimeout(); got != time.Minute {
		t.Errorf("default: %s", got)
	}
	for input, want := range map[string]string{
		"modelgate {\n read_body_timeout\n}":      "wrong argument count",
		"modelgate {\n read_body_timeout soon\n}": `read_body_timeout: "soon" is not a duration`,
		"modelgate {\n read_body_timeout 0s\n}":   "read_body_timeout must be positive",
		"modelgate {\n read_body_timeout -1s\n}":  "read_body_timeout must be positive",
	} {
		if _, err := parse(t, input); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", input, err, want)
		}
	}
}
