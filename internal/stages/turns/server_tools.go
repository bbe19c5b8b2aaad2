package turns

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Server-tool blocks (Anthropic: "server_tool_use" with a "srvtoolu_" id,
// and its result block in the same assistant turn: web_search_tool_result,
// web_fetch_tool_result, code_execution_tool_result, advisor_tool_result,
// ... any "*_tool_result" type).
const (
	blockServerToolUse = "server_tool_use"
	serverToolIDPrefix = "srvtoolu_"
	serverResultSuffix = "_tool_result"
)

// ServerTools goes beyond OpenClaw (issue 16): Anthropic runs server tools
// itself and replays their blocks, and it refuses a result block whose
// server_tool_use is not before it in the same turn ("unexpected
// `tool_use_id` found in `advisor_tool_result` blocks ... must have a
// corresponding `server_tool_use` block before it": anthropics/claude-code
// #62577, #64383, #65726, #84783). The result block follows its
// server_tool_use in the same assistant turn (platform.claude.com, "Server
// tools": "The result block appears immediately after the server_tool_use
// block in the same assistant turn").
//
// For the Anthropic Messages API (when the job offers tools), each
// assistant turn keeps a server_tool_use whose id starts with "srvtoolu_"
// together with the first later "*_tool_result" block of the turn whose
// tool_use_id is that id. Every other result block (no such use before it
// in its turn, a second one, or one outside an assistant turn) is dropped
// ("orphan_results"), and so is a server_tool_use without a result or with
// another id ("unanswered_uses"): a server result cannot be synthesised.
//
// Every other target refuses these blocks altogether (none of them runs
// Anthropic's server tools; Bedrock Converse's ContentBlock has no such
// member), and so does Anthropic when the request declares no tools: a
// server_tool_use becomes the text "[server tool call] NAME(INPUT)", a
// result the text "[server tool result] NAME" and a newline followed by its
// readable parts (titles, urls, text, stdout, stderr, error codes; never
// encrypted content), and a block with nothing readable is dropped
// ("as_text" and "dropped").
//
// It runs first among the turn rules, so that a turn it empties is judged
// by §3.2 in the same pass.
func ServerTools() stage.Stage {
	const name = "server_tools"
	return stage.Stage{Name: name, Needs: transcript.FactOtherBlock, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		keep := env.Policy.API == "anthropic-messages" && !env.Settings.Request.NoToolsOffered()
		var c serverToolCounts
		for _, m := range t.Messages {
			if !mayHoldServerTools(m) || !m.IsObject() {
				continue
			}
			blocks, ok := m.Blocks()
			if !ok || !hasServerToolBlock(blocks) {
				continue
			}
			var out []*transcript.Block
			before := c
			switch {
			case !keep:
				out = serverBlocksAsText(blocks, &c)
			case m.Role() == transcript.RoleAssistant:
				out = pairServerBlocks(blocks, &c)
			default:
				out = withoutServerBlocks(blocks, &c)
			}
			if c != before {
				m.SetBlocks(out)
			}
		}
		env.Report.Add(name, "orphan_results", c.orphanResults)
		env.Report.Add(name, "unanswered_uses", c.unansweredUses)
		env.Report.Add(name, "as_text", c.asText)
		env.Report.Add(name, "dropped", c.dropped)
		return nil
	}}
}

type serverToolCounts struct {
	orphanResults, unansweredUses, asText, dropped int
}

// mayHoldServerTools is one byte search that spares parsing the blocks of
// a message read from the input that cannot hold a server-tool block (most
// of them, images included): both block types contain "_tool", and '_' is
// rare outside identifiers (standard base64 has none), so the search skips
// through the bytes. Choice: a type spelled with \u escapes ("server\u005f
// tool_use") is not recognised; Anthropic and OpenClaw write them plain.
func mayHoldServerTools(m *transcript.Message) bool {
	raw := m.Raw()
	return raw == nil || m.Changed() || bytes.Contains(raw, []byte("_tool"))
}

func isServerResult(b *transcript.Block) bool {
	typ := b.Type()
	return strings.HasSuffix(typ, serverResultSuffix) && len(typ) > len(serverResultSuffix)
}

func hasServerToolBlock(blocks []*transcript.Block) bool {
	for _, b := range blocks {
		if b.Type() == blockServerToolUse || isServerResult(b) {
			return true
		}
	}
	return false
}

// pairServerBlocks keeps each srvtoolu_ use with its first later result in
// the turn and drops the rest.
func pairServerBlocks(blocks []*transcript.Block, c *serverToolCounts) []*transcript.Block {
	useAt := map[string]int{}  // open use id → its block index
	answered := map[int]bool{} // use block index → has its result
	drop := make([]bool, len(blocks))
	for i, b := range blocks {
		switch {
		case b.Type() == blockServerToolUse:
			id, _ := b.String("id")
			if _, open := useAt[id]; !strings.HasPrefix(id, serverToolIDPrefix) || open {
				drop[i] = true
				continue
			}
			useAt[id] = i
		case isServerResult(b):
			id, _ := b.String("tool_use_id")
			u, open := useAt[id]
			if !open {
				drop[i] = true
				c.orphanResults++
				continue
			}
			answered[u] = true
			delete(useAt, id)
		}
	}
	for i, b := range blocks {
		if b.Type() == blockServerToolUse && !answered[i] {
			drop[i] = true
		}
	}
	out := make([]*transcript.Block, 0, len(blocks))
	for i, b := range blocks {
		if drop[i] {
			if b.Type() == blockServerToolUse {
				c.unansweredUses++
			}
			continue
		}
		out = append(out, b)
	}
	return out
}

// withoutServerBlocks drops the server-tool blocks of a turn that is not the
// assistant's: they belong in the assistant turn that ran them.
func withoutServerBlocks(blocks []*transcript.Block, c *serverToolCounts) []*transcript.Block {
	out := make([]*transcript.Block, 0, len(blocks))
	for _, b := range blocks {
		switch {
		case b.Type() == blockServerToolUse:
			c.unansweredUses++
		case isServerResult(b):
			c.orphanResults++
		default:
			out = append(out, b)
		}
	}
	return out
}

// serverBlocksAsText turns each server-tool block into text, or drops it
// when it carries nothing readable.
func serverBlocksAsText(blocks []*transcript.Block, c *serverToolCounts) []*transcript.Block {
	names := map[string]string{} // use id → tool name
	out := make([]*transcript.Block, 0, len(blocks))
	for _, b := range blocks {
		switch {
		case b.Type() == blockServerToolUse:
			name, _ := b.String("name")
			id, _ := b.String("id")
			names[id] = name
			input, _ := b.Get("input")
			if name == "" && len(readableParts(input)) == 0 {
				c.dropped++
				continue
			}
			out = append(out, transcript.TextBlock("[server tool call] "+name+"("+compactJSON(input)+")"))
			c.asText++
		case isServerResult(b):
			id, _ := b.String("tool_use_id")
			name := names[id]
			if name == "" {
				name = strings.TrimSuffix(b.Type(), serverResultSuffix)
			}
			content, _ := b.Get("content")
			parts := readableParts(content)
			if len(parts) == 0 {
				c.dropped++
				continue
			}
			out = append(out, transcript.TextBlock("[server tool result] "+name+"\n"+strings.Join(parts, "\n")))
			c.asText++
		default:
			out = append(out, b)
		}
	}
	return out
}

// compactJSON returns raw as compact JSON ({} when absent or invalid).
func compactJSON(raw []byte) string {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil {
		return "{}"
	}
	return buf.String()
}

// readableKeys are the members whose string values a reader can use in a
// server-tool block (search queries and hits, fetched pages, program
// output, errors), in the order they are written.
var readableKeys = []string{"title", "url", "query", "text", "stdout", "stderr", "error_code", "data"}

// readableParts collects the readable strings of a JSON value, in order;
// "data" counts only inside a text source (a fetched page), never the
// encrypted or base64 members.
func readableParts(raw []byte) []string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			textSource := x["type"] == "text"
			for _, k := range readableKeys {
				s, ok := x[k].(string)
				if !ok || s == "" || (k == "data" && !textSource) {
					continue
				}
				parts = append(parts, s)
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys) // the order of a decoded map is not; the output must be
			for _, k := range keys {
				switch x[k].(type) {
				case []any, map[string]any:
					if k != "encrypted_content" && k != "encrypted_index" {
						walk(x[k])
					}
				}
			}
		}
	}
	walk(v)
	return parts
}
