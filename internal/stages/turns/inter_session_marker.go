package turns

import (
	"context"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// InterSessionMarker is spec §3.1, always on and the first rule of the
// chain: every user message whose provenance.kind is "inter_session" gets
// the exact marker (header with its details and isUser=false, then the
// explanation line) on top of its text. String content is annotated; array
// content has its first string text block annotated, or gets a new leading
// text block when it has none. Choice: a blank text block does not count
// (annotate would leave it unchanged and the next rule removes it, so the
// marker would land on another block in a second pass). Text that already starts with the marker is
// left alone, and a stale, buried or older short marker is moved to the top
// and rewritten in the current form. Provenance strings are trimmed; blank
// ones count as absent.
func InterSessionMarker() stage.Stage {
	const name = "inter_session_marker"
	return stage.Stage{Name: name, Needs: transcript.FactProvenance, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		n := 0
		for _, c := range stage.ChunkResults(env, len(t.Messages), func(lo, hi int) int {
			annotated := 0
			for _, m := range t.Messages[lo:hi] {
				if m.Role() != transcript.RoleUser {
					continue
				}
				if prefix, ok := interSessionPrefix(m); ok && annotateMessage(m, prefix) {
					annotated++
				}
			}
			return annotated
		}) {
			n += c
		}
		env.Report.Add(name, "annotated", n)
		return nil
	}}
}

// interSessionPrefix returns the marker for m when its provenance is
// inter-session.
func interSessionPrefix(m *transcript.Message) (string, bool) {
	raw, ok := m.Get("provenance")
	if !ok {
		return "", false
	}
	prov, err := transcript.ParseObject(raw)
	if err != nil {
		return "", false
	}
	if kind, _ := prov.String("kind"); kind != "inter_session" {
		return "", false
	}
	var b strings.Builder
	b.WriteString(interSessionHeader)
	for _, d := range []struct{ label, key string }{
		{"sourceSession", "sourceSessionKey"},
		{"sourceChannel", "sourceChannel"},
		{"sourceTool", "sourceTool"},
	} {
		if v, ok := prov.String(d.key); ok && strings.TrimSpace(v) != "" {
			b.WriteString(" " + d.label + "=" + strings.TrimSpace(v))
		}
	}
	b.WriteString(" isUser=false\n")
	b.WriteString(interSessionExplanation)
	return b.String(), true
}

// annotateMessage puts the marker on m and reports whether m changed.
func annotateMessage(m *transcript.Message, prefix string) bool {
	if s, ok := m.ContentString(); ok {
		if out := annotate(s, prefix); out != s {
			m.SetContentString(out)
			return true
		}
		return false
	}
	blocks, ok := m.Blocks()
	if !ok {
		return false
	}
	for _, b := range blocks {
		if b.Type() != transcript.BlockText {
			continue
		}
		if s, ok := b.Text(); ok && !transcript.IsBlank(s) {
			if out := annotate(s, prefix); out != s {
				b.SetString("text", out)
				return true
			}
			return false
		}
	}
	withMarker := make([]*transcript.Block, 0, len(blocks)+1)
	withMarker = append(withMarker, transcript.TextBlock(annotate(interSessionFiller, prefix)))
	m.SetBlocks(append(withMarker, blocks...))
	return true
}

// annotate is spec §3.1's annotate(text).
func annotate(text, prefix string) string {
	if strings.TrimSpace(text) == "" || text == prefix || strings.HasPrefix(text, prefix+"\n") {
		return text
	}
	body := text
	if i := strings.Index(text, interSessionHeader); i >= 0 {
		before := text[:i]
		after := ""
		if nl := strings.IndexByte(text[i:], '\n'); nl >= 0 {
			after = text[i+nl+1:]
		}
		if after == interSessionExplanation {
			after = ""
		} else if rest, ok := strings.CutPrefix(after, interSessionExplanation+"\n"); ok {
			after = rest
		}
		var pieces []string
		if s := strings.TrimRight(before, " \t\r\n"); s != "" {
			pieces = append(pieces, s)
		}
		if s := strings.TrimLeft(after, " \t\r\n"); s != "" {
			pieces = append(pieces, s)
		}
		body = strings.Join(pieces, "\n")
	}
	return prefix + "\n" + body
}
