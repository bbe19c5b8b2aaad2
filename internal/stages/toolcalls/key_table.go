package toolcalls

import (
	"hash/maphash"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// keyTable maps ids to the indexes of the resolver's states. Its ids are
// split by hash into shards, so that the ids a pass collects are interned
// by several goroutines at once, one per shard (intern); with one shard it
// is one map and hashes nothing. Shard j of s numbers the ids it interns
// j, j+s, j+2s, …, so no shard waits for another's count; an id the
// resolver adds later takes the next index after all of them. Which index
// an id gets never shows in the output: only the resolver's order of
// reading and writing states does, and that is the history's.
type keyTable struct {
	seed   maphash.Seed
	shards []map[string]int32
}

// newKeyTable returns an empty table of n shards (at least one).
func newKeyTable(n int) *keyTable {
	return &keyTable{seed: maphash.MakeSeed(), shards: make([]map[string]int32, max(n, 1))}
}

// shard is the index of the shard that holds id.
func (t *keyTable) shard(id string) int {
	if len(t.shards) == 1 {
		return 0
	}
	return int(maphash.String(t.seed, id) % uint64(len(t.shards)))
}

// lookup returns the index of id, if it has one.
func (t *keyTable) lookup(id string) (int32, bool) {
	ki, ok := t.shards[t.shard(id)][id]
	return ki, ok
}

// add gives id the index ki (id has none yet).
func (t *keyTable) add(id string, ki int32) { t.shards[t.shard(id)][id] = ki }

// intern numbers the ids of the collected chunks, each shard on its own
// goroutine through run (run(k, f) calls f(0) … f(k-1), some in parallel),
// and returns how many indexes it gave out: every id's index is below it.
// A shard writes only the index fields of the ids it holds, so shards never
// write the same field.
func (t *keyTable) intern(chunks []idChunk, run func(k int, f func(int))) int32 {
	n := int32(len(t.shards))
	sizes := make([]int32, n)
	hint := 0
	for i := range chunks {
		hint += len(chunks[i].calls)
	}
	run(int(n), func(j int) {
		sh := newKeyShard(int32(j), n, hint/int(n))
		get := func(id string, ki *int32) {
			if t.shard(id) == j {
				sh.intern(id, ki)
			}
		}
		for i := range chunks {
			for c := range chunks[i].calls {
				cs := &chunks[i].calls[c]
				get(transcript.TrimID(cs.raw), &cs.key)
				if cs.hasBase {
					get(cs.base, &cs.baseKey)
				}
				if cs.hasSecond {
					get(cs.second, &cs.secondKey)
				}
			}
			for r := range chunks[i].results {
				rs := &chunks[i].results[r]
				get(rs.k, &rs.key)
			}
		}
		t.shards[j] = sh.m
		sizes[j] = sh.next
	})
	size := int32(0)
	for _, s := range sizes {
		size = max(size, s)
	}
	return size
}

// adopt makes the one shard of a one-shard table the ids sh interned (a
// pass in one chunk interns as it collects: collector.keys), and returns
// how many indexes it gave out, as intern does.
func (t *keyTable) adopt(sh *keyShard) int32 {
	t.shards[0] = sh.m
	return sh.next
}

// keyShard is one shard of a key table as its ids are interned: shard j of
// s gives out the indexes j, j+s, j+2s, … (keyTable).
type keyShard struct {
	m          map[string]int32
	next, step int32
}

// newKeyShard returns shard j of s, empty, its map sized for the ids of
// about calls calls. It is sized for two ids per call, its trimmed id and
// its sanitised one: a result's id is almost always its call's, and an id
// the resolver adds later is mostly one of these (the large suite's damaged
// 100k-message history: 86,711 ids for 43,599 calls). Sizing for a result
// too asked for half as much room again, which the map's rounding to powers
// of two made twice as much there (7.0 MB, not 3.5); an id beyond the hint
// grows one of the map's tables, not the map.
func newKeyShard(j, s int32, calls int) keyShard {
	return keyShard{m: takeShard(2 * calls), next: j, step: s}
}

// intern sets *ki to id's index, first giving id the next one when it has
// none.
func (sh *keyShard) intern(id string, ki *int32) {
	if k, ok := sh.m[id]; ok {
		*ki = k
		return
	}
	*ki = sh.next
	sh.m[id] = sh.next
	sh.next += sh.step
}
