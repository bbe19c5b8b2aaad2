package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// The reason classes of a drop, read from the input alone. Every class but
// ClassValidDropped names a defect of the input that the rules are meant to
// remove; ClassValidDropped is a call with complete arguments in a turn
// that did not fail (or its result) lost by the repair, which
// --fail-on-drop fails on.
const (
	ClassValidDropped    = "valid_call_dropped"   // a well-formed call, or the result of one, was dropped
	ClassErroredTurn     = "errored_turn"         // the call's turn has stopReason error or aborted
	ClassMissingID       = "missing_id"           // the call has no non-empty string id (spec §1.3)
	ClassIncomplete      = "incomplete_arguments" // neither input nor arguments is an object, or partialJson is unfinished
	ClassInvalidName     = "invalid_name"         // the name fails spec §3.5, the target's contract or allowed_tool_names
	ClassDuplicateID     = "duplicate_id_in_turn" // an earlier call of the same turn has the same id
	ClassSignedTurn      = "signed_turn"          // its turn's signed thinking is replayed unchanged, and a sibling makes the turn unsafe
	ClassToolsAsText     = "tools_as_text"        // the request offers no tools, so the tool history goes as text
	ClassNoCall          = "no_call_on_branch"    // a result whose id matches no call before it on the branch
	ClassDuplicateResult = "duplicate_result"     // a result for a call that kept another result
)

// Kinds of a Drop.
const (
	KindCall   = "call"
	KindResult = "result"
)

// Drop is one tool call or tool result of the input that is not in the
// sanitized output. Message and Block locate it in the input (Block is -1
// for a result).
type Drop struct {
	Kind    string `json:"kind"`
	Class   string `json:"class"`
	Message int    `json:"message"`
	Block   int    `json:"block"`
	ID      string `json:"id"`
	Name    string `json:"name"`
	Reason  string `json:"reason"`
}

// Valid reports whether the drop is of a well-formed call or its result.
func (d Drop) Valid() bool { return d.Class == ClassValidDropped }

// rules is what the classifier needs to know of the target and the job.
type rules struct {
	names       contract.IDLimits // the target's tool-name limits
	allowed     []string          // allowed_tool_names, lower-cased and trimmed (nil: any)
	toolsAsText bool              // the request carries the tool history as text
	// verifier is the target's provider/api when its policy replays
	// provider-owned signed thinking unchanged ("" otherwise).
	verifier string
}

// verdict is the class of one input call and the sentence that says why
// ("" for a well-formed call).
type verdict struct{ class, why string }

// classify is the verdict on each input call: callClass, and signed_turn
// for a well-formed call of a turn the target replays unchanged (thinking
// signed by the target's own provider and api, where the policy replays
// provider-owned thinking) that spec §3.5 must drop whole: another call of
// the turn is malformed, or a call of it reuses the id of a call of an
// earlier turn (the spec: of an earlier preserved signed turn, or of an
// earlier assistant when its results are displaced; the audit takes any
// earlier turn, the wider of the two).
func classify(in inventory, r rules) []verdict {
	v := make([]verdict, len(in.calls))
	unsafe := map[int]string{} // turn -> why it goes whole
	firstTurn := map[string]int{}
	for i, c := range in.calls {
		v[i].class, v[i].why = r.callClass(c)
		if c.id != "" {
			if _, ok := firstTurn[c.id]; !ok {
				firstTurn[c.id] = c.turn
			}
		}
		if r.verifier == "" || c.signedBy != r.verifier || unsafe[c.turn] != "" {
			continue
		}
		switch {
		case v[i].class != "":
			unsafe[c.turn] = "another call of its turn is malformed (" + v[i].class + ")"
		case c.id != "" && firstTurn[c.id] < c.turn:
			unsafe[c.turn] = fmt.Sprintf("a call of its turn reuses the id %q of an earlier turn", c.id)
		}
	}
	for i, c := range in.calls {
		if why := unsafe[c.turn]; v[i].class == "" && why != "" {
			v[i] = verdict{ClassSignedTurn, why + ", and " + r.verifier + " gets the turn's signed thinking unchanged, so it goes whole"}
		}
	}
	return v
}

// callClass is why the input call c would be dropped ("" when it is well
// formed), and the sentence that says so.
func (r rules) callClass(c call) (string, string) {
	switch {
	case r.toolsAsText:
		return ClassToolsAsText, "the request offers no tools, so tool calls are sent as text"
	case c.stop == transcript.StopError || c.stop == transcript.StopAborted:
		return ClassErroredTurn, fmt.Sprintf("its turn ended with stopReason %q", c.stop)
	case c.id == "":
		return ClassMissingID, "the call has no id"
	case !c.complete:
		return ClassIncomplete, "its arguments are not a complete JSON object"
	case !validName(c.name, r.names):
		return ClassInvalidName, fmt.Sprintf("the name %q is not a valid tool name for the target", c.rawName)
	case r.allowed != nil && !slices.Contains(r.allowed, strings.ToLower(c.name)):
		return ClassInvalidName, fmt.Sprintf("the name %q is not in allowed_tool_names", c.rawName)
	case c.dupInTurn:
		return ClassDuplicateID, fmt.Sprintf("an earlier call of the same turn has the id %q", c.id)
	}
	return "", ""
}

// matching pairs the input's calls and results with the output's.
// in[i] is the output index of input call (or result) i, -1 when dropped.
type matching struct {
	calls, results []int
	addedCalls     int // output calls with no input call (none expected)
	addedResults   int // output results with no input result (synthesised ones)
}

// match pairs the calls and results of the input with those of the output.
// Ids may have been rewritten, so a call is matched by what it does:
//
//  1. an output call takes an unmatched input call with the same trimmed
//     name and the same arguments (compared as canonical JSON); among
//     several, one with the same id first, then one the classifier calls
//     well formed, then the earliest (so identical calls match in order);
//  2. else an unmatched input call with the same id;
//  3. else the earliest unmatched input call with the same name after the
//     last input call matched so far (arguments a rule repaired);
//  4. else it counts as added.
//
// An output result answers an output call (inventoryOf); it takes an
// unmatched input result that answers the input call matched to that
// call, the earliest first; else one with the same toolName and content;
// else it counts as added (a result the repair synthesised).
func match(in, out inventory, v []verdict) matching {
	m := matching{calls: filled(len(in.calls)), results: filled(len(in.results))}
	byKey := map[string][]int{}
	byID := map[string][]int{}
	byName := map[string][]int{}
	for i, c := range in.calls {
		byKey[c.key()] = append(byKey[c.key()], i)
		if c.id != "" {
			byID[c.id] = append(byID[c.id], i)
		}
		byName[c.name] = append(byName[c.name], i)
	}
	outCall := filled(len(out.calls)) // output call -> input call
	last := -1
	for j, oc := range out.calls {
		i := pickCall(byKey[oc.key()], m.calls, func(i int) int {
			switch {
			case in.calls[i].id == oc.id:
				return 0
			case v[i].class == "":
				return 1
			}
			return 2
		})
		if i < 0 && oc.id != "" {
			i = pickCall(byID[oc.id], m.calls, func(int) int { return 0 })
		}
		if i < 0 {
			i = pickCall(byName[oc.name], m.calls, func(i int) int {
				if i > last {
					return 0
				}
				return 1
			})
		}
		if i < 0 {
			m.addedCalls++
			continue
		}
		m.calls[i], outCall[j] = j, i
		last = max(last, i)
	}
	answering := map[int][]int{} // input call -> input results answering it
	byContent := map[string][]int{}
	for i, res := range in.results {
		if res.answers >= 0 {
			answering[res.answers] = append(answering[res.answers], i)
		}
		byContent[res.name+"\x00"+res.content] = append(byContent[res.name+"\x00"+res.content], i)
	}
	for j, or := range out.results {
		i := -1
		if or.answers >= 0 && outCall[or.answers] >= 0 {
			i = pickCall(answering[outCall[or.answers]], m.results, func(int) int { return 0 })
		}
		if i < 0 {
			i = pickCall(byContent[or.name+"\x00"+or.content], m.results, func(int) int { return 0 })
		}
		if i < 0 {
			m.addedResults++
			continue
		}
		m.results[i] = j
	}
	return m
}

// pickCall returns the candidate not yet taken with the lowest rank, the
// earliest among equals; -1 when every candidate is taken.
func pickCall(candidates, taken []int, rank func(int) int) int {
	best, bestRank := -1, 0
	for _, i := range candidates {
		if taken[i] >= 0 {
			continue
		}
		if k := rank(i); best < 0 || k < bestRank {
			best, bestRank = i, k
			if k == 0 {
				break
			}
		}
	}
	return best
}

func filled(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// drops lists what the input lost, in input order, calls and results
// interleaved as the messages are.
func drops(in inventory, m matching, v []verdict) []Drop {
	var out []Drop
	kept := map[int]bool{} // input calls with a result kept
	for i, res := range in.results {
		if res.answers >= 0 && m.results[i] >= 0 {
			kept[res.answers] = true
		}
	}
	ci, ri := 0, 0
	for ci < len(in.calls) || ri < len(in.results) {
		if ri >= len(in.results) || ci < len(in.calls) && in.calls[ci].msg <= in.results[ri].msg {
			c := in.calls[ci]
			if m.calls[ci] < 0 {
				class, why := v[ci].class, v[ci].why
				if class == "" {
					class, why = ClassValidDropped, "a well-formed call in a turn that did not fail"
				}
				out = append(out, Drop{Kind: KindCall, Class: class, Message: c.msg, Block: c.block, ID: c.id, Name: c.rawName, Reason: why})
			}
			ci++
			continue
		}
		res := in.results[ri]
		if m.results[ri] < 0 {
			class, why := resultClass(in, m, v, ri, kept)
			out = append(out, Drop{Kind: KindResult, Class: class, Message: res.msg, Block: -1, ID: res.id, Name: res.name, Reason: why})
		}
		ri++
	}
	return out
}

// resultClass is why input result ri was dropped.
func resultClass(in inventory, m matching, v []verdict, ri int, kept map[int]bool) (string, string) {
	res := in.results[ri]
	if res.answers < 0 {
		return ClassNoCall, fmt.Sprintf("no call with id %q comes before it on the branch", res.id)
	}
	c := in.calls[res.answers]
	if class := v[res.answers].class; class != "" {
		return class, "its call: " + v[res.answers].why
	}
	if kept[res.answers] {
		return ClassDuplicateResult, fmt.Sprintf("another result for call %q was kept", c.id)
	}
	if m.calls[res.answers] < 0 {
		return ClassValidDropped, fmt.Sprintf("the result of the well-formed call %q, which was dropped too", c.id)
	}
	return ClassValidDropped, fmt.Sprintf("the only result of the well-formed call %q, which was kept", c.id)
}
