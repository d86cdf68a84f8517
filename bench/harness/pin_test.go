package main

import (
	"reflect"
	"testing"
)

func TestParseCPUList(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
	}{
		{"0", []int{0}},
		{"0-1", []int{0, 1}},
		{"0-3,6", []int{0, 1, 2, 3, 6}},
		{"2,4-5", []int{2, 4, 5}},
	} {
		got, err := parseCPUList(tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "1-", "0,,1"} {
		if got, err := parseCPUList(bad); err == nil {
			t.Errorf("parseCPUList(%q) = %v, want an error", bad, got)
		}
	}
}

func TestCPUPlanCommand(t *testing.T) {
	p := cpuPlan{taskset: "/usr/bin/taskset", proxy: "1", others: "0"}
	cmd := p.command(t.Context(), p.proxy, "/bin/modelgate", "run")
	if want := []string{"/usr/bin/taskset", "-c", "1", "/bin/modelgate", "run"}; !reflect.DeepEqual(cmd.Args, want) {
		t.Errorf("pinned command %q, want %q", cmd.Args, want)
	}
	cmd = cpuPlan{}.command(t.Context(), "", "/bin/modelgate", "run")
	if want := []string{"/bin/modelgate", "run"}; !reflect.DeepEqual(cmd.Args, want) {
		t.Errorf("unpinned command %q, want %q", cmd.Args, want)
	}
}
