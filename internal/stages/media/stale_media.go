package media

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"regexp"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Exact markers of spec §3.19.
const (
	// StaleImageMarker replaces an image the model has already seen.
	StaleImageMarker = "[image data removed - already processed by model]"
	// StaleMediaRefMarker replaces a text reference to media the model has
	// already seen.
	StaleMediaRefMarker = "[media reference removed - already processed by model]"
)

// keptCompletedTurns is how many of the latest completed turns stay
// byte-identical (spec §3.19 step 2).
const keptCompletedTurns = 3

// jsSpace is JavaScript's \s (ECMAScript WhiteSpace and LineTerminator),
// which is wider than RE2's ASCII-only \s.
const jsSpace = `\t\n\x0B\f\r \x{00A0}\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}`

// mediaRefPatterns are spec §3.19's three patterns, applied in this order.
// The case-insensitive ones spell their letters as ASCII classes, because
// RE2's (?i) also folds U+017F and U+212A onto s and k, which JavaScript's
// non-Unicode /i does not. Each runs only on a text its guard finds
// (mediaRefPattern).
var mediaRefPatterns = []mediaRefPattern{
	{regexp.MustCompile(`\[[Mm][Ee][Dd][Ii][Aa] [Aa][Tt][Tt][Aa][Cc][Hh][Ee][Dd](?:[` + jsSpace + `]+[0-9]+/[0-9]+)?:[` + jsSpace + `]*[^\]]+\]`),
		func(s string) bool { return hasBracketedWord(s, bracketedWords[0]) }},
	{regexp.MustCompile(`\[[Ii][Mm][Aa][Gg][Ee]:[` + jsSpace + `]*[Ss][Oo][Uu][Rr][Cc][Ee]:[` + jsSpace + `]*[^\]]+\]`),
		func(s string) bool { return hasBracketedWord(s, bracketedWords[1]) }},
	{regexp.MustCompile(`\bmedia://inbound/[^\]` + jsSpace + `/\\]+`),
		func(s string) bool { return strings.Contains(s, "media://inbound/") }},
}

// A mediaRefPattern is one of spec §3.19's patterns, and its guard: a test
// of what every match of it holds, so that a text the guard does not find
// has no match. The regexp runs only on a text the guard finds. Real tool
// output (source, JSON, listings) holds brackets in almost every text, and
// the third pattern, whose \b gives RE2 no literal prefix to search for,
// reads such a text at ~30 MB/s: unguarded, it was 84 % of the chain on a
// history of real tool output (BenchmarkDefaultChain/tool-output).
type mediaRefPattern struct {
	re    *regexp.Regexp
	guard func(s string) bool
}

// hasBracketedWord reports whether s holds a '[' followed by word, its
// ASCII letters in either case (strings.EqualFold over as many bytes as
// word has: true for every ASCII spelling the patterns' letter classes
// match; word itself is ASCII).
func hasBracketedWord(s, word string) bool {
	for i := strings.IndexByte(s, '['); i >= 0; {
		s = s[i+1:]
		if len(s) >= len(word) && strings.EqualFold(s[:len(word)], word) {
			return true
		}
		i = strings.IndexByte(s, '[')
	}
	return false
}

// StaleMedia returns the stage "stale_media": spec §3.19, always on. The
// last three completed turns (and the turn in progress) stay byte-identical;
// in the user and toolResult messages before them, image blocks become the
// StaleImageMarker text block and media references in text become the
// StaleMediaRefMarker. It is idempotent: the markers match no pattern.
func StaleMedia() stage.Stage {
	return stage.Stage{Name: "stale_media", Apply: applyStaleMedia}
}

func applyStaleMedia(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	pruneBefore := staleBoundary(t.Messages)
	images, refs := 0, 0
	var err error // the first chunk's that the context stopped
	stage.EachChunk(env, pruneBefore, staleRun{ctx, t.Messages}, scrubStaleRange, func(c staleCounts) {
		err = cmp.Or(err, c.err)
		images += c.images
		refs += c.refs
	})
	if err != nil {
		return err
	}
	env.Report.Add("stale_media", "images", images)
	env.Report.Add("stale_media", "media_refs", refs)
	env.Report.Images.Stale += images
	return nil
}

// staleCounts is what stale-media cleanup changed in a run of messages, or
// the context's error that stopped it.
type staleCounts struct {
	images, refs int
	err          error
}

// staleRun is what the stale-media pass reads: the job's context and its
// messages.
type staleRun struct {
	ctx  context.Context
	msgs []*transcript.Message
}

// scrubStaleRange cleans the user and tool-result messages among
// r.msgs[lo:hi], each alone (so chunks of the stale part can run in
// parallel).
func scrubStaleRange(r staleRun, lo, hi int) staleCounts {
	ctx, msgs := r.ctx, r.msgs
	var n staleCounts
	for i := lo; i < hi; i++ {
		if i&1023 == 0 {
			if n.err = ctx.Err(); n.err != nil {
				return n
			}
		}
		m := msgs[i]
		if role := m.Role(); role != transcript.RoleUser && role != transcript.RoleToolResult {
			continue
		}
		ni, nr := scrubStaleMedia(m)
		n.images += ni
		n.refs += nr
	}
	return n
}

// staleBoundary returns the index before which media is stale: the start
// of the third-from-last completed turn, or 0 when there are at most three.
// A user message starts a turn; a toolResult starts one only when no turn
// has started yet; a turn is completed once an assistant follows its start
// (several assistants of one tool loop complete it once).
func staleBoundary(msgs []*transcript.Message) int {
	// the starts of the last keptCompletedTurns completed turns, the n-th
	// completed at n%keptCompletedTurns: a job's setup allocates nothing
	var last [keptCompletedTurns]int
	completed := 0
	start, open := -1, false
	for i, m := range msgs {
		switch m.Role() {
		case transcript.RoleUser:
			start, open = i, true
		case transcript.RoleToolResult:
			if start < 0 {
				start, open = i, true
			}
		case transcript.RoleAssistant:
			if open {
				last[completed%keptCompletedTurns] = start
				completed++
				open = false
			}
		}
	}
	if completed <= keptCompletedTurns {
		return 0
	}
	return last[completed%keptCompletedTurns] // the start of completed turn number completed-keptCompletedTurns
}

// scrubStaleMedia replaces the stale images and media references of one
// user or toolResult message and returns how many of each it replaced. A
// message with nothing to replace is left untouched.
func scrubStaleMedia(m *transcript.Message) (images, refs int) {
	blocks, ok := m.Blocks()
	if !ok {
		if raw, _ := m.Get("content"); len(raw) > 0 && raw[0] == '"' && mayHoldMediaRef(raw) {
			s, _ := m.ContentString()
			if out, n := scrubMediaRefs(s); n > 0 {
				m.SetContentString(out)
				refs += n
			}
		}
		return images, refs
	}
	var out []*transcript.Block
	for i, b := range blocks {
		switch b.Type() {
		case transcript.BlockImage:
			if out == nil {
				out = append(make([]*transcript.Block, 0, len(blocks)), blocks[:i]...)
			}
			out = append(out, transcript.TextBlock(StaleImageMarker))
			images++
			continue
		case transcript.BlockText:
			if raw, _ := b.Get("text"); !mayHoldMediaRef(raw) {
				break
			}
			if text, ok := b.Text(); ok {
				if scrubbed, n := scrubMediaRefs(text); n > 0 {
					b.SetString("text", scrubbed)
					refs += n
				}
			}
		}
		if out != nil {
			out = append(out, b)
		}
	}
	if out != nil {
		m.SetBlocks(out)
	}
	return images, refs
}

// mayHoldMediaRef (media_search.go, media_search_simd.go) reports whether a
// raw JSON string value might decode to text one of the patterns matches,
// by what their guards need (mediaRefPattern): the first two a '[' and
// their word (bracketedWords), the third "media://inbound/". Outside \u
// escapes JSON spells a '[', a letter, a space or a colon only as itself,
// and a '/' as itself or `\/`. So it is true when raw holds a '[' followed
// by one of bracketedWords (its letters in either case), "media:" or `\u`;
// a text it is false for is never decoded. Tool output holds brackets in
// almost every text: a '[' alone would decode them all.
//
// mayHoldMediaRefEach is mayHoldMediaRef, each marker searched on its own.
// Each search suits its marker: '[' by IndexByte (vector code), "media:"
// at each ':' IndexByte finds, and `\u` by a test of eight bytes at a
// time (hasEscapeU). bytes.Contains of "media:" stops at every 'm' of the
// text and of `\u` at every backslash (most texts have a \n or \" every
// line), then steps a byte at a time: that was stale media's time on a
// clean history.
//
// This is the search of a build without GOEXPERIMENT=simd, and of a short
// text or a CPU without AVX2 in one with it (media_search_simd.go reads a
// longer text once for the three markers).
func mayHoldMediaRefEach(raw []byte) bool {
	return hasBracketedRef(raw) || hasMediaColon(raw) || hasEscapeU(raw)
}

// bracketedWords are the words that follow the '[' that starts every
// match of the first two patterns.
var bracketedWords = [...]string{"media attached", "image:"}

// hasBracketedRef reports whether raw holds a '[' followed by one of
// bracketedWords (startsBracketedWord).
func hasBracketedRef(raw []byte) bool {
	for i := bytes.IndexByte(raw, '['); i >= 0; {
		raw = raw[i+1:]
		if startsBracketedWord(raw) {
			return true
		}
		i = bytes.IndexByte(raw, '[')
	}
	return false
}

// startsBracketedWord reports whether after, the bytes after a '[', start
// with one of bracketedWords, its ASCII letters in either case. Most
// brackets of tool output are followed by neither word's first letter,
// which one test of a byte rules out.
func startsBracketedWord(after []byte) bool {
	if len(after) == 0 || after[0]|0x20 != 'm' && after[0]|0x20 != 'i' {
		return false
	}
	for _, w := range bracketedWords {
		if len(after) >= len(w) && strings.EqualFold(string(after[:len(w)]), w) {
			return true
		}
	}
	return false
}

// hasMediaColon reports whether raw holds "media:".
func hasMediaColon(raw []byte) bool {
	for i := 0; ; i++ {
		j := bytes.IndexByte(raw[i:], ':')
		if j < 0 {
			return false
		}
		if i += j; i >= 5 && string(raw[i-5:i]) == "media" {
			return true
		}
	}
}

// hasEscapeU reports whether raw holds `\u`. It tests sixteen bytes at a
// time for a backslash followed by a 'u' (escapeU), and searches only a
// block the test flags.
func hasEscapeU(raw []byte) bool {
	i := 0
	for ; i+17 <= len(raw); i += 16 {
		b := raw[i : i+17 : i+17] // the block and the byte after it
		if escapeU(b[0:8], b[1:9])|escapeU(b[8:16], b[9:17]) != 0 && bytes.Contains(b, []byte(`\u`)) {
			return true
		}
	}
	return bytes.Contains(raw[i:], []byte(`\u`))
}

// escapeU flags the bytes of the eight at w that are a backslash followed
// by a 'u' (next is w one byte on), and perhaps others (see byteMask),
// never missing one.
func escapeU(w, next []byte) uint64 {
	return byteMask(binary.LittleEndian.Uint64(w), '\\') & byteMask(binary.LittleEndian.Uint64(next), 'u')
}

// byteMask has the high bit set of every byte of w that equals c, and
// perhaps of a byte 0x01 above one that does (a borrow).
func byteMask(w uint64, c byte) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	x := w ^ ones*uint64(c)
	return (x - ones) &^ x & highs
}

// scrubMediaRefs applies the three patterns in order and returns the text
// and the number of references replaced.
func scrubMediaRefs(s string) (string, int) {
	n := 0
	for _, p := range mediaRefPatterns {
		if !p.guard(s) {
			continue
		}
		locs := p.re.FindAllStringIndex(s, -1)
		if len(locs) == 0 {
			continue
		}
		n += len(locs)
		var b strings.Builder
		b.Grow(len(s) + len(locs)*len(StaleMediaRefMarker))
		prev := 0
		for _, loc := range locs {
			b.WriteString(s[prev:loc[0]])
			b.WriteString(StaleMediaRefMarker)
			prev = loc[1]
		}
		b.WriteString(s[prev:])
		s = b.String()
	}
	return s, n
}
