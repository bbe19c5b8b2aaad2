package toolcalls

import (
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// callRef locates a tool call: its message and block index.
type callRef struct{ msg, block int }

// refOcc is one call occurrence of the reference pairing.
type refOcc struct {
	ref    callRef
	key    string
	frame  int
	result int // message index of its result, -1 when none
	synth  bool
}

// refPairing pairs results with calls by id the way spec §3.7 describes
// (frames, in-frame FIFO claims, duplicates replacing synthetic results,
// single-candidate cross-frame moves), on decoded JSON, independently of the
// code under test. It returns result message index → call. The first claim
// is kept: a result that matched after trimming keeps its call over a later
// exact one (issue 20); results here all carry ids, so no id-less adoption,
// the one case where an exact id wins, arises.
func refPairing(msgs []any) map[int]callRef {
	var frames [][]*refOcc
	frameOf := make([]int, len(msgs)) // frame index of each message, -1 before the first
	cur := -1
	for i, m := range msgs {
		obj, _ := m.(map[string]any)
		if obj["role"] == "assistant" {
			var occs []*refOcc
			blocks, _ := obj["content"].([]any)
			for j, b := range blocks {
				blk, _ := b.(map[string]any)
				switch blk["type"] {
				case "toolCall", "toolUse", "functionCall":
				default:
					continue
				}
				if id, ok := blk["id"].(string); ok && id != "" {
					occs = append(occs, &refOcc{ref: callRef{i, j}, key: transcript.TrimID(id), frame: len(frames), result: -1})
				}
			}
			if len(occs) > 0 {
				frames = append(frames, occs)
				cur = len(frames) - 1
			}
		}
		frameOf[i] = cur
	}
	unclaimed := make([][]int, len(frames))
	for i, m := range msgs {
		obj, _ := m.(map[string]any)
		f := frameOf[i]
		if obj["role"] != "toolResult" || f < 0 {
			continue
		}
		id, ok := refResultID(obj)
		synth := refSynthetic(obj)
		inFrame := false
		var claim, replace *refOcc
		for _, o := range frames[f] {
			if !ok || o.key != id {
				continue
			}
			inFrame = true
			if o.result < 0 && claim == nil {
				claim = o
			}
			if o.result >= 0 && o.synth && replace == nil {
				replace = o
			}
		}
		switch {
		case claim != nil:
			claim.result, claim.synth = i, synth
		case inFrame && !synth && replace != nil:
			replace.result, replace.synth = i, false
		case !inFrame && ok:
			unclaimed[f] = append(unclaimed[f], i)
		}
	}
	for f := range frames {
		for _, i := range unclaimed[f] {
			obj := msgs[i].(map[string]any)
			id, _ := refResultID(obj)
			synth := refSynthetic(obj)
			var cands []*refOcc
			for g := 0; g <= f; g++ {
				for _, o := range frames[g] {
					if o.key == id && (o.result < 0 || o.synth && !synth) {
						cands = append(cands, o)
					}
				}
			}
			if len(cands) == 1 {
				cands[0].result, cands[0].synth = i, synth
			}
		}
	}
	out := map[int]callRef{}
	for _, occs := range frames {
		for _, o := range occs {
			if o.result >= 0 {
				out[o.result] = o.ref
			}
		}
	}
	return out
}

// refResultID is §3.7's result id extraction: the first non-blank of the id
// members in their extraction order, trimmed as JavaScript trims.
func refResultID(obj map[string]any) (string, bool) {
	if raw := refRawResultID(obj); raw != "" {
		return transcript.TrimID(raw), true
	}
	return "", false
}

// refRawResultID is that id as written.
func refRawResultID(obj map[string]any) string {
	for _, k := range transcript.ResultIDFields {
		if s, ok := obj[k].(string); ok && transcript.TrimID(s) != "" {
			return s
		}
	}
	return ""
}

// refSynthetic is §3.7's isSynthetic for the shapes the generator writes.
func refSynthetic(obj map[string]any) bool {
	if obj["isError"] != true {
		return false
	}
	d, _ := obj["details"].(map[string]any)
	return d["openclawSyntheticMissingToolResult"] == true
}
