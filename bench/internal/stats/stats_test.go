package stats

import (
	"testing"
	"time"
)

func TestPercentileNearestRank(t *testing.T) {
	sorted := []int64{15, 20, 35, 40, 50}
	for _, tc := range []struct {
		p    float64
		want int64
	}{
		{5, 15}, {20, 15}, {30, 20}, {40, 20}, {50, 35}, {90, 50}, {99, 50}, {100, 50}, {0, 15},
	} {
		if got := percentile(sorted, tc.p); got != tc.want {
			t.Errorf("percentile(%v) = %d, want %d", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("empty: got %d", got)
	}
}

func TestRecorderSummary(t *testing.T) {
	var r Recorder
	if r.Summary() != nil {
		t.Fatal("empty recorder must summarise to nil")
	}
	// 1..100 ms, added out of order across two recorders.
	other := NewRecorder(50)
	for i := 100; i >= 1; i-- {
		d := time.Duration(i) * time.Millisecond
		if i%2 == 0 {
			r.Add(d)
		} else {
			other.Add(d)
		}
	}
	r.Merge(other)
	s := r.Summary()
	want := Summary{Count: 100, Min: 1, Mean: 50.5, P50: 50, P90: 90, P99: 99, Max: 100}
	if *s != want {
		t.Fatalf("summary = %+v, want %+v", *s, want)
	}
	if got := r.Percentile(99.9); got != 100*time.Millisecond {
		t.Errorf("p99.9 = %v", got)
	}
	r.Add(500 * time.Microsecond) // resorts after a late Add
	if got := r.Percentile(0.5); got != 500*time.Microsecond {
		t.Errorf("min after Add = %v", got)
	}
}

func TestMsRoundsToMicroseconds(t *testing.T) {
	if got := ms(1_234_567); got != 1.235 {
		t.Errorf("ms = %v", got)
	}
}
