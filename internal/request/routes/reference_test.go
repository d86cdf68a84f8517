package routes

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite ../docs/endpoints-reference.md from the route table")

// referencePath is the generated page, relative to this package.
const referencePath = "../../../docs/endpoints-reference.md"

func TestEndpointsReferenceIsCurrent(t *testing.T) {
	want := reference()
	if *update {
		if err := os.WriteFile(referencePath, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("%v; run go test ./internal/request/routes -run TestEndpointsReferenceIsCurrent -update", err)
	}
	if string(got) != want {
		t.Errorf("%s is not what the route table renders; run go test ./internal/request/routes -run TestEndpointsReferenceIsCurrent -update", referencePath)
	}
}
