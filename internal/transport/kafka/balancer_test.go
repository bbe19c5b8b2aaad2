package kafka

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	kafkago "github.com/segmentio/kafka-go"
)

// member is one group member for the balancer tests: its id and what it
// reports to own.
type member struct {
	id    string
	gen   int32
	owned []int
}

// assign runs the balancer once over members on one topic of n partitions.
func assign(t *testing.T, n int, members []member) map[string][]int {
	t.Helper()
	gm := make([]kafkago.GroupMember, len(members))
	for i, m := range members {
		data, err := json.Marshal(ownership{Generation: m.gen, Topics: map[string][]int{"jobs": m.owned}})
		if err != nil {
			t.Fatal(err)
		}
		gm[i] = kafkago.GroupMember{ID: m.id, Topics: []string{"jobs"}, UserData: data}
	}
	parts := make([]kafkago.Partition, n)
	for i := range parts {
		parts[i] = kafkago.Partition{Topic: "jobs", ID: i}
	}
	out := map[string][]int{}
	for id, topics := range (stickyBalancer{}).AssignGroups(gm, parts) {
		out[id] = topics["jobs"]
	}
	return out
}

// settle runs generations until the assignment stops changing (a withheld
// partition is given out in the generation after its owner let it go) and
// returns the settled assignment and how many generations it took.
func settle(t *testing.T, n int, ids []string, owned map[string][]int) (map[string][]int, int) {
	t.Helper()
	for gen := int32(1); gen <= 4; gen++ {
		ms := make([]member, len(ids))
		for i, id := range ids {
			ms[i] = member{id: id, gen: gen, owned: owned[id]}
		}
		next := assign(t, n, ms)
		for id, ps := range next {
			for _, p := range ps {
				for other, was := range owned {
					if other != id && slices.Contains(was, p) {
						t.Fatalf("partition %d went from %s to %s in one generation; it must be withheld first", p, other, id)
					}
				}
			}
		}
		if maps.EqualFunc(next, owned, slices.Equal) {
			return next, int(gen)
		}
		owned = next
	}
	t.Fatalf("the assignment of %d partitions to %v did not settle in 4 generations", n, ids)
	return nil, 0
}

func TestStickyAssignTable(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		members []member
		want    map[string][]int
	}{
		{"first member takes all", 4, []member{{id: "a"}}, map[string][]int{"a": {0, 1, 2, 3}}},
		{"fresh group splits evenly", 5, []member{{id: "a"}, {id: "b"}}, map[string][]int{"a": {0, 1, 2}, "b": {3, 4}}},
		{"a join withholds what moves", 8, []member{{id: "a", gen: 3, owned: []int{0, 1, 2, 3, 4, 5, 6, 7}}, {id: "b"}},
			map[string][]int{"a": {0, 1, 2, 3}, "b": nil}},
		{"a withheld partition goes to the member below its share", 8, []member{{id: "a", gen: 4, owned: []int{0, 1, 2, 3}}, {id: "b"}},
			map[string][]int{"a": {0, 1, 2, 3}, "b": {4, 5, 6, 7}}},
		{"a leaver's partitions go straight to the others", 6, []member{{id: "a", gen: 5, owned: []int{0, 1}}, {id: "c", gen: 5, owned: []int{4, 5}}},
			map[string][]int{"a": {0, 1, 2}, "c": {3, 4, 5}}},
		{"the longest owner keeps the extra place", 5, []member{{id: "a", gen: 2, owned: []int{0, 1}}, {id: "b", gen: 2, owned: []int{2, 3, 4}}},
			map[string][]int{"a": {0, 1}, "b": {2, 3, 4}}},
		{"a stale claim loses to the newer generation", 4, []member{{id: "a", gen: 2, owned: []int{0, 1, 2, 3}}, {id: "b", gen: 7, owned: []int{2, 3}}},
			map[string][]int{"a": {0, 1}, "b": {2, 3}}},
		{"claims of partitions that no longer exist are ignored", 2, []member{{id: "a", gen: 2, owned: []int{0, 5, 9}}},
			map[string][]int{"a": {0, 1}}},
		{"more members than partitions", 2, []member{{id: "a", gen: 1, owned: []int{1}}, {id: "b"}, {id: "c"}},
			map[string][]int{"a": {1}, "b": {0}, "c": nil}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := assign(t, tc.n, tc.members)
			if !maps.EqualFunc(got, tc.want, func(a, b []int) bool { return slices.Equal(a, b) }) {
				t.Errorf("assignment %v, want %v", got, tc.want)
			}
		})
	}
}

// TestStickyAssignUnknownMetadata: a member whose metadata is not ours (or
// none) owns nothing, and every partition is still assigned.
func TestStickyAssignUnknownMetadata(t *testing.T) {
	gm := []kafkago.GroupMember{
		{ID: "a", Topics: []string{"jobs"}, UserData: []byte{0, 1, 2}},
		{ID: "b", Topics: []string{"jobs"}},
	}
	parts := []kafkago.Partition{{Topic: "jobs", ID: 0}, {Topic: "jobs", ID: 1}, {Topic: "jobs", ID: 2}}
	got := (stickyBalancer{}).AssignGroups(gm, parts)
	if !slices.Equal(got["a"]["jobs"], []int{0, 1}) || !slices.Equal(got["b"]["jobs"], []int{2}) {
		t.Errorf("assignment %v, want a [0 1] and b [2]", got)
	}
}

// TestStickyAssignProperties scales random groups up and down and checks,
// at every step: every partition is assigned exactly once after the group
// settles; every member has ⌊P/N⌋ or ⌈P/N⌉; a partition never goes to a
// new owner while its old owner still holds it (withheld first); a join
// moves at most ⌈P/N⌉ partitions, a leave moves only the leaver's; and
// the result does not depend on the order the members are listed in.
func TestStickyAssignProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 1))
	for round := range 300 {
		n := 1 + rng.IntN(40)
		next := 0
		newID := func() string { next++; return fmt.Sprintf("member-%03d-%d", rng.IntN(1000), next) }
		ids := []string{newID()}
		owned, _ := settle(t, n, ids, map[string][]int{})
		for step := range 8 {
			before := maps.Clone(owned)
			joining := len(ids) == 1 || rng.IntN(2) == 0
			var leaver string
			if joining {
				ids = append(ids, newID())
			} else {
				i := rng.IntN(len(ids))
				leaver = ids[i]
				ids = slices.Delete(slices.Clone(ids), i, i+1)
			}
			slices.Sort(ids)
			var gens int
			owned, gens = settle(t, n, ids, pick(before, ids))
			where := fmt.Sprintf("round %d step %d (P=%d, N=%d, join=%v)", round, step, n, len(ids), joining)
			checkBalanced(t, where, n, ids, owned)
			moved := movedFrom(before, owned, leaver)
			if joining && moved > (n+len(ids)-1)/len(ids) {
				t.Fatalf("%s: a join moved %d partitions, more than ⌈P/N⌉", where, moved)
			}
			if !joining && moved != 0 {
				t.Fatalf("%s: a leave moved %d partitions of members that stayed", where, moved)
			}
			if !joining && gens > 2 {
				t.Fatalf("%s: a leave took %d generations to settle, want one change", where, gens)
			}
			checkOrderFree(t, where, n, ids, owned, rng)
		}
	}
}

// pick is owned restricted to the members ids (a leaver reports nothing).
func pick(owned map[string][]int, ids []string) map[string][]int {
	out := map[string][]int{}
	for _, id := range ids {
		out[id] = owned[id]
	}
	return out
}

func checkBalanced(t *testing.T, where string, n int, ids []string, owned map[string][]int) {
	t.Helper()
	seen := make([]int, n)
	lo, hi := n/len(ids), (n+len(ids)-1)/len(ids)
	for _, id := range ids {
		if c := len(owned[id]); c < lo || c > hi {
			t.Fatalf("%s: member %s has %d partitions, want %d..%d", where, id, c, lo, hi)
		}
		for _, p := range owned[id] {
			seen[p]++
		}
	}
	for p, c := range seen {
		if c != 1 {
			t.Fatalf("%s: partition %d is assigned %d times: %v", where, p, c, owned)
		}
	}
}

// movedFrom counts the partitions of a member other than leaver that have
// a different owner after than before.
func movedFrom(before, after map[string][]int, leaver string) int {
	owner := map[int]string{}
	for id, ps := range after {
		for _, p := range ps {
			owner[p] = id
		}
	}
	moved := 0
	for id, ps := range before {
		if id == leaver {
			continue
		}
		for _, p := range ps {
			if owner[p] != id {
				moved++
			}
		}
	}
	return moved
}

// checkOrderFree assigns the settled state again with the members shuffled
// and expects the same result (nothing moves once settled).
func checkOrderFree(t *testing.T, where string, n int, ids []string, owned map[string][]int, rng *rand.Rand) {
	t.Helper()
	ms := make([]member, len(ids))
	for i, id := range ids {
		ms[i] = member{id: id, gen: 9, owned: owned[id]}
	}
	rng.Shuffle(len(ms), func(i, j int) { ms[i], ms[j] = ms[j], ms[i] })
	if got := assign(t, n, ms); !maps.EqualFunc(got, pick(owned, ids), slices.Equal) {
		t.Fatalf("%s: a settled group assigned again in another order moved partitions: %v, want %v", where, got, owned)
	}
}
