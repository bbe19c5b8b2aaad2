package kafka

import (
	"slices"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/transport"
)

// TestClaimOutlivesExpiry: when no generation follows within the session
// timeout (the coordinator was away), the member gives its partitions up
// to the runner, but still claims them, with the generation it held them
// in, when it joins again, so the balancer gives them back to it (and it
// reads them from past the work it did and could not commit) rather than
// to another member, which would read them again from the last commit.
func TestClaimOutlivesExpiry(t *testing.T) {
	s := &Source{cfg: SourceConfig{Topic: "jobs"}, closing: make(chan struct{}), lastGen: 7, parts: []int{0, 2, 3}, claim: []int{0, 2, 3}}
	var lost []transport.Partition
	s.OnRevoke(func(ps []transport.Partition) { lost = append(lost, ps...) })
	s.expire(7)
	if len(lost) != 3 || len(s.Partitions()) != 0 {
		t.Fatalf("after expiry: the runner was told %v lost and the member holds %v; want all three lost and none held", lost, s.Partitions())
	}
	got := s.ownership()
	if got.Generation != 7 || !slices.Equal(got.Topics["jobs"], []int{0, 2, 3}) {
		t.Fatalf("join metadata after expiry claims %+v; want generation 7 with partitions [0 2 3]", got)
	}
	// Two members cut off in the same generation claim their own partitions:
	// each gets its own back.
	out := stickyAssign([]string{"a", "b"}, []int{0, 1, 2, 3}, map[string][]int{"a": {2, 3}, "b": {0, 1}}, func(string) int32 { return 7 })
	if !slices.Equal(out["a"], []int{2, 3}) || !slices.Equal(out["b"], []int{0, 1}) {
		t.Fatalf("claims of one generation assigned %v; want each member its own", out)
	}
}

// TestClaimsMissing: a member whose generation does not follow its last
// rejoins at once when it was not given every partition it claimed (one
// may be withheld, and there is no hand-off to end the generation).
func TestClaimsMissing(t *testing.T) {
	for _, c := range []struct {
		claim, assigned []int
		want            bool
	}{
		{nil, nil, false},
		{nil, []int{1}, false},
		{[]int{1, 4}, []int{1, 2, 4}, false},
		{[]int{1, 4}, []int{1, 2}, true},
		{[]int{3}, nil, true},
	} {
		if got := claimsMissing(c.claim, c.assigned); got != c.want {
			t.Errorf("claimsMissing(%v, %v) = %v; want %v", c.claim, c.assigned, got, c.want)
		}
	}
}
