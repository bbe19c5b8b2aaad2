package kafka

import (
	"encoding/json"
	"slices"
	"sort"

	kafkago "github.com/segmentio/kafka-go"
)

// stickyProtocol is the group protocol name of stickyBalancer. Members that
// do not offer it (another version of the worker) make the coordinator pick
// the range protocol, which every Source offers second.
const stickyProtocol = "hygiene-sticky-v1"

// ownership is what a member sends in its join metadata (the UserData of
// kafka-go's group protocol): the generation it last held and the
// partitions of each topic it owned in it.
type ownership struct {
	Generation int32            `json:"generation"`
	Topics     map[string][]int `json:"topics"`
}

// stickyBalancer is a kafka-go GroupBalancer that keeps every partition
// with the member that owned it and moves as few partitions as balance
// needs: each member ends with ⌊P/N⌋ or ⌈P/N⌉ partitions of a topic, the
// ⌈P/N⌉ places going to the members that own the most already.
//
// kafka-go speaks only the eager group protocol (every member's generation
// ends on every join and leave; there is no cooperative protocol to revoke
// a few partitions while the rest keep going), so the balancer emulates the
// cooperative one on top of it: a partition that must move from one live
// member to another is first withheld (assigned to no one) while its owner
// finishes the jobs it started on it, commits them and rejoins (see
// Source.handOff); the generation after that assigns it to its new owner.
// A partition whose owner left, and a partition nobody owned, go straight
// to a member below its share. So a join costs two short rebalances and
// moves at most ⌈P/N⌉ partitions; a leave costs one and moves only the
// leaver's partitions; a partition that stays is never waited for.
//
// Two members claiming one partition (a member cut off from the group
// that still reports its old assignment) resolve to the higher generation,
// then to the lower member id. A member whose metadata does not parse owns
// nothing. The assignment depends only on the members, their metadata and
// the partitions, so it is deterministic.
type stickyBalancer struct {
	// owned returns this member's current ownership, sent on every join.
	owned func() ownership
}

var _ kafkago.GroupBalancer = stickyBalancer{}

// ProtocolName names the protocol to the coordinator.
func (b stickyBalancer) ProtocolName() string { return stickyProtocol }

// UserData is this member's ownership, sent in its join request.
func (b stickyBalancer) UserData() ([]byte, error) { return json.Marshal(b.owned()) }

// AssignGroups assigns each topic's partitions among the members that
// subscribe to it, as the type's documentation says.
func (b stickyBalancer) AssignGroups(members []kafkago.GroupMember, partitions []kafkago.Partition) kafkago.GroupMemberAssignments {
	out := kafkago.GroupMemberAssignments{}
	owns := make(map[string]ownership, len(members))
	byTopic := map[string][]string{}
	for _, m := range members {
		out[m.ID] = map[string][]int{}
		var o ownership
		if json.Unmarshal(m.UserData, &o) != nil {
			o = ownership{}
		}
		owns[m.ID] = o
		for _, t := range m.Topics {
			byTopic[t] = append(byTopic[t], m.ID)
		}
	}
	ids := map[string][]int{}
	for _, p := range partitions {
		ids[p.Topic] = append(ids[p.Topic], p.ID)
	}
	for topic, subscribers := range byTopic {
		parts := ids[topic]
		slices.Sort(parts)
		slices.Sort(subscribers)
		claims := map[string][]int{}
		for _, m := range subscribers {
			claims[m] = owns[m].Topics[topic]
		}
		for m, ps := range stickyAssign(subscribers, parts, claims, func(m string) int32 { return owns[m].Generation }) {
			out[m][topic] = ps
		}
	}
	return out
}

// stickyAssign assigns parts among members (both sorted) given what each
// member claims to own and the generation of its claim. A partition that
// moves away from a live claimant is withheld: it is in no member's list.
func stickyAssign(members []string, parts []int, claims map[string][]int, gen func(string) int32) map[string][]int {
	out := make(map[string][]int, len(members))
	if len(members) == 0 {
		return out
	}
	exists := make(map[int]bool, len(parts))
	for _, p := range parts {
		exists[p] = true
	}
	// owner of each claimed partition: the higher generation, then the lower id.
	owner := map[int]string{}
	for _, m := range members {
		for _, p := range claims[m] {
			if !exists[p] {
				continue
			}
			if cur, ok := owner[p]; ok && (gen(cur) > gen(m) || gen(cur) == gen(m) && cur < m) {
				continue
			}
			owner[p] = m
		}
	}
	owned := make(map[string][]int, len(members))
	for _, p := range parts {
		if m, ok := owner[p]; ok {
			owned[m] = append(owned[m], p)
		}
	}
	// quotas: the ⌈P/N⌉ places go to the members owning the most.
	order := slices.Clone(members)
	sort.SliceStable(order, func(i, j int) bool { return len(owned[order[i]]) > len(owned[order[j]]) })
	base, extra := len(parts)/len(members), len(parts)%len(members)
	quota := make(map[string]int, len(members))
	for i, m := range order {
		quota[m] = base
		if i < extra {
			quota[m]++
		}
	}
	// each owner keeps its lowest partitions up to its quota; the rest of a
	// live owner's are withheld, and only unowned partitions are free.
	room := make(map[string]int, len(members))
	for _, m := range members {
		keep := min(quota[m], len(owned[m]))
		out[m] = slices.Clone(owned[m][:keep])
		room[m] = quota[m] - keep
	}
	var free []int
	for _, p := range parts {
		if _, ok := owner[p]; !ok {
			free = append(free, p)
		}
	}
	// free partitions fill the members below their quota, in member order,
	// leaving room for the withheld ones (which take it next generation).
	i := 0
	for _, m := range members {
		for ; room[m] > 0 && i < len(free); room[m]-- {
			out[m] = append(out[m], free[i])
			i++
		}
	}
	for _, m := range members {
		slices.Sort(out[m])
	}
	return out
}
