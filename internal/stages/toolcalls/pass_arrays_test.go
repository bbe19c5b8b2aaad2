package toolcalls

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/hygiene-dev/hygiene/internal/policy"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// A pass's arrays go back to the pools cleared, and the next pass (of the
// same history or another) gives the same output as a pass on fresh
// arrays: a history's ids, run after a larger history with other ids, come
// out as they did before it.
func TestPassArraysReusedClean(t *testing.T) {
	small, large := string(benchHistory(300)), string(benchHistory(3000))
	for _, target := range []policy.Policy{policy.Resolve(anthropic), policy.Resolve(mistral), policy.Resolve(responses)} {
		first, _ := runPolicy(t, target, small, ToolCallIDs())
		runPolicy(t, target, large, ToolCallIDsInImagePass(), ToolCallIDs())
		again, _ := runPolicy(t, target, small, ToolCallIDs())
		if string(first) != string(again) {
			t.Fatalf("%s: the ids of a history differ after a pass over another", target.Provider)
		}
	}
	runPolicy(t, policy.Resolve(anthropic), string(benchHistory(3000)), ToolCallIDs())
	if a, ok := sitePool.Get().(*siteArrays); ok {
		for _, c := range a.calls[:cap(a.calls)] {
			if c != (callSite{}) {
				t.Fatalf("a pooled call site holds %+v", c)
			}
		}
		for _, r := range a.results[:cap(a.results)] {
			if r != (resultSite{}) {
				t.Fatalf("a pooled result site holds %+v", r)
			}
		}
	}
	if m, ok := shardPool.Get().(map[string]int32); ok && len(m) != 0 {
		t.Fatalf("a pooled shard holds %d ids", len(m))
	}
	if a, ok := statesPool.Get().(*resolverArrays); ok {
		for _, o := range a.occs[:cap(a.occs)] {
			if o != (occurrence{}) {
				t.Fatalf("a pooled occurrence holds %+v", o)
			}
		}
	}
}

// The second id pass over a long history allocates a fraction of the
// first: its sites, shard maps, states and occurrences are the first's
// (the collector off between them, as a job's two passes usually see at
// most one collection, which the pools outlive).
func TestSecondPassReusesArrays(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector's sync.Pool drops arrays at random")
	}
	history := benchHistory(20000)
	p := policy.Resolve(mistral)
	var trs [2]*transcript.Transcript
	for i := range trs {
		var err error
		if trs[i], err = transcript.FromMessages(history, mistral); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.GC() // the pools empty: the first pass allocates its own
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// A sync.Pool keeps what one P put in that P's own slot, which a
	// goroutine moved to another P does not see: on one P the reuse is
	// certain (at more it is likely, not certain).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var bytes [2]uint64
	for i, tr := range trs {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if err := ToolCallIDs().Apply(context.Background(), tr, &stage.Env{Policy: p, Report: stage.NewReport()}); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		bytes[i] = after.TotalAlloc - before.TotalAlloc
	}
	if bytes[1] > bytes[0]/2 {
		t.Fatalf("the second pass allocated %d bytes, the first %d: its arrays were not reused", bytes[1], bytes[0])
	}
}

// TestResolverStatesRoom: the states a resolver is given have room for
// the ids it adds as it goes (an eighth of them, at least 64), so the
// first added id does not copy every state into a new array; a pooled
// array of at least as many states has that room too.
func TestResolverStatesRoom(t *testing.T) {
	for _, size := range []int32{1, 100, 86711, 50} {
		states, occs := takeResolverArrays(size, 10)
		if len(states) != int(size) || cap(states)-len(states) < statesRoom(size) {
			t.Errorf("%d states: length %d, room for %d more, want %d", size, len(states), cap(states)-len(states), statesRoom(size))
		}
		for i := range states {
			if states[i] != emptyKey {
				t.Fatalf("%d states: state %d is %+v, want emptyKey", size, i, states[i])
			}
		}
		statesPool.Put(&resolverArrays{states: states[:0], occs: occs[:0]})
	}
}
