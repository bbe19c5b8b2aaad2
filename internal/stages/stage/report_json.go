package stage

import (
	"slices"
	"strconv"

	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// AppendJSON appends the report as transcript.Marshal writes it (the
// ready payload's "report" member), byte for byte, without encoding/json's
// reflection: a small job's report is otherwise a tenth of its encode. A
// report holding a string outside plain printable ASCII (a contract
// violation that quotes the history, say) is written by transcript.Marshal
// itself, so no escaping rule is restated here.
func (r *Report) AppendJSON(dst []byte) ([]byte, error) {
	if !r.plain() {
		b, err := transcript.Marshal(r)
		return append(dst, b...), err
	}
	dst = append(dst, `{"changed":`...)
	dst = strconv.AppendBool(dst, r.Changed)
	dst = append(dst, `,"stages":`...)
	dst = r.Stages.appendJSON(dst)
	im := r.Images
	dst = append(dst, `,"images":{"resized":`...)
	dst = strconv.AppendInt(dst, int64(im.Resized), 10)
	dst = append(dst, `,"omitted":`...)
	dst = strconv.AppendInt(dst, int64(im.Omitted), 10)
	dst = append(dst, `,"stale":`...)
	dst = strconv.AppendInt(dst, int64(im.Stale), 10)
	dst = append(dst, `,"bytes_in":`...)
	dst = strconv.AppendInt(dst, im.BytesIn, 10)
	dst = append(dst, `,"bytes_out":`...)
	dst = strconv.AppendInt(dst, im.BytesOut, 10)
	pr := r.Pruning
	dst = append(dst, `},"pruning":{"ran":`...)
	dst = strconv.AppendBool(dst, pr.Ran)
	dst = append(dst, `,"soft_trimmed":`...)
	dst = strconv.AppendInt(dst, int64(pr.SoftTrimmed), 10)
	dst = append(dst, `,"hard_cleared":`...)
	dst = strconv.AppendInt(dst, int64(pr.HardCleared), 10)
	dst = append(dst, '}')
	if sr := r.SessionRepair; sr != nil {
		dst = append(dst, `,"session_repair":{"dropped_lines":`...)
		dst = strconv.AppendInt(dst, int64(sr.DroppedLines), 10)
		if sr.KeepPointsMissing != 0 {
			dst = append(dst, `,"compaction_keep_points_missing":`...)
			dst = strconv.AppendInt(dst, int64(sr.KeepPointsMissing), 10)
		}
		dst = append(dst, '}')
	}
	if c := r.Contract; c != nil {
		dst = append(dst, `,"contract":{"family":`...)
		dst = append(append(append(dst, '"'), c.Family...), '"')
		dst = append(dst, `,"violations":`...)
		if c.Violations == nil {
			dst = append(dst, "null"...)
		} else {
			dst = append(dst, '[')
			for i, v := range c.Violations {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = append(append(append(dst, '"'), v...), '"')
			}
			dst = append(dst, ']')
		}
		dst = append(dst, `,"by_rule":`...)
		dst = appendCounts(dst, c.ByRule)
		dst = append(dst, '}')
	}
	if f := r.ContextFit; f != nil {
		dst = appendContextFit(dst, f)
	}
	dst = append(dst, `,"bytes_in":`...)
	dst = strconv.AppendInt(dst, int64(r.BytesIn), 10)
	dst = append(dst, `,"bytes_out":`...)
	dst = strconv.AppendInt(dst, int64(r.BytesOut), 10)
	return append(dst, '}'), nil
}

// appendContextFit appends the member context_fit, whose strings plain
// has vouched for.
func appendContextFit(dst []byte, f *ContextFitReport) []byte {
	dst = append(dst, `,"context_fit":{"mode":"`...)
	dst = append(dst, f.Mode...)
	dst = append(dst, `","tokenizer":"`...)
	dst = append(dst, f.Tokenizer...)
	dst = append(dst, '"')
	for _, n := range []struct {
		key string
		v   int
	}{{"window", f.Window}, {"reserve", f.Reserve}, {"room", f.Room}, {"tokens_before", f.TokensBefore},
		{"tokens_after", f.TokensAfter}, {"soft_trimmed", f.SoftTrimmed}, {"hard_cleared", f.HardCleared},
		{"turns_dropped", f.TurnsDropped}, {"messages_dropped", f.MessagesDropped}} {
		dst = appendKey(append(dst, ','), n.key)
		dst = strconv.AppendInt(dst, int64(n.v), 10)
	}
	dst = append(dst, `,"fits":`...)
	dst = strconv.AppendBool(dst, f.Fits)
	return append(dst, '}')
}

// appendCounts appends a count map as encoding/json does: its keys in
// order, null for a nil map.
func appendCounts(dst []byte, m map[string]int) []byte {
	if m == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '{')
	var buf [32]string
	for i, k := range sortedKeys(buf[:0], m) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendKey(dst, k)
		dst = strconv.AppendInt(dst, int64(m[k]), 10)
	}
	return append(dst, '}')
}

// appendKey appends "k": for a plain key.
func appendKey(dst []byte, k string) []byte {
	return append(append(append(dst, '"'), k...), '"', ':')
}

// sortedKeys appends m's keys to keys in byte order, encoding/json's
// order for the plain keys AppendJSON writes itself.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// plain reports whether every string of r is plain: printable ASCII
// without a quote or a backslash, which encoding/json writes as it is.
func (r *Report) plain() bool {
	if !r.Stages.plain() {
		return false
	}
	if c := r.Contract; c != nil {
		if !transcript.PlainString(c.Family) || !plainKeys(c.ByRule) {
			return false
		}
		for _, v := range c.Violations {
			if !transcript.PlainString(v) {
				return false
			}
		}
	}
	if f := r.ContextFit; f != nil && (!transcript.PlainString(f.Mode) || !transcript.PlainString(f.Tokenizer)) {
		return false
	}
	return true
}

func plainKeys(m map[string]int) bool {
	for k := range m {
		if !transcript.PlainString(k) {
			return false
		}
	}
	return true
}
