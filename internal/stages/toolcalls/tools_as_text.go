package toolcalls

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// toolsAsTextStage is the report key and metric label of ToolsAsText.
const toolsAsTextStage = "tools_as_text"

// ToolsAsText runs when the job says tools_offered: false (beyond OpenClaw;
// issue 16): the next request declares no tools, and providers refuse tool
// blocks without tool definitions (Bedrock Converse: "The toolConfig field
// must be defined when using toolUse and toolResult content blocks",
// pydantic/pydantic-ai#1966, BerriAI/litellm PR #31400, vercel/ai PR #7537;
// the Anthropic Messages API and OpenAI refuse them too). So every tool call
// and every tool result becomes plain text, for every target, in this form:
//
//   - a tool call block (any spelling) becomes, in place, the text block
//     "[tool call] NAME(ARGUMENTS)", ARGUMENTS being the call's arguments
//     (or input) as compact JSON, {} when it has none; a string of
//     arguments (OpenAI's stringified JSON) is written as it is;
//   - a tool result message (toolResult, or the legacy role tool) becomes a
//     user message: one text block "[tool result] NAME" (or "[tool result,
//     error] NAME" when isError is true), a newline and the result's text
//     (its string content, or its text blocks joined by newlines; "(no
//     output)" when it has none), followed by the result's image and
//     document blocks, which a user turn takes wherever a tool result does
//     (the stage documents judges the documents after); its timestamp is kept and
//     its tool members (toolCallId, toolName, isError, details) go;
//   - a tool-result block inside a user message becomes the same text.
//
// The rule runs after pairing (every call is answered right after its turn,
// so each text answer follows its call) and after the per-request context
// transforms, so pruning still treats results as tool output; the turn
// shape (merging the user turns this makes adjacent) is ProviderTurns' job.
// stopReason is left as it is: providers do not read it.
func ToolsAsText() stage.Stage {
	return stage.Stage{Name: toolsAsTextStage, On: toolsAsTextOn, Needs: transcript.FactToolCall | transcript.FactToolCallSnake | transcript.FactToolResult | transcript.FactOtherBlock, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !toolsAsTextOn(env) {
			return nil
		}
		calls, results := 0, 0
		for i, m := range t.Messages {
			if !m.IsObject() {
				continue
			}
			switch m.Role() {
			case transcript.RoleAssistant:
				calls += callsAsText(m)
			case transcript.RoleToolResult, transcript.RoleTool:
				t.Messages[i] = resultAsUser(m)
				results++
			case transcript.RoleUser:
				results += resultBlocksAsText(m)
			}
		}
		env.Report.Add(toolsAsTextStage, "calls", calls)
		env.Report.Add(toolsAsTextStage, "results", results)
		return nil
	}}
}

// callsAsText replaces each tool call block of an assistant with its text.
func callsAsText(m *transcript.Message) int {
	blocks, ok := m.Blocks()
	if !ok {
		return 0
	}
	n := 0
	out := make([]*transcript.Block, len(blocks))
	for i, b := range blocks {
		out[i] = b
		if b.IsAnyToolCall() {
			name, _ := b.String("name")
			out[i] = transcript.TextBlock("[tool call] " + name + "(" + callArguments(b) + ")")
			n++
		}
	}
	if n > 0 {
		m.SetBlocks(out)
	}
	return n
}

// callArguments returns a call's arguments (or input) as compact JSON.
func callArguments(b *transcript.Block) string {
	for _, k := range []string{"arguments", "input"} {
		raw, ok := b.Get(k)
		if !ok || string(raw) == "null" {
			continue
		}
		if s, isString := b.String(k); isString {
			return s
		}
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return buf.String()
		}
		return string(raw)
	}
	return "{}"
}

// resultAsUser builds the user message that says what a tool result said.
func resultAsUser(m *transcript.Message) *transcript.Message {
	name, _ := m.String("toolName")
	isError, _ := m.Bool("isError")
	raw, _ := m.Get("content")
	text, images := resultContent(raw)
	blocks := append([]*transcript.Block{transcript.TextBlock(resultHeader(name, isError) + "\n" + text)}, images...)
	u := transcript.NewMessage(transcript.Field{Key: "role", Value: transcript.JSONString(transcript.RoleUser)})
	u.SetBlocks(blocks)
	if ts, ok := m.Get("timestamp"); ok {
		u.Set("timestamp", ts)
	}
	return u
}

// resultBlocksAsText replaces the tool-result blocks of a user message.
func resultBlocksAsText(m *transcript.Message) int {
	blocks, ok := m.Blocks()
	if !ok {
		return 0
	}
	var out []*transcript.Block
	n := 0
	for i, b := range blocks {
		switch b.Type() {
		case transcript.RoleToolResult, "tool_result":
		default:
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = append(make([]*transcript.Block, 0, len(blocks)), blocks[:i]...)
		}
		name, _ := b.String("toolName")
		isError, _ := b.Bool("isError")
		if e, ok := b.Bool("is_error"); ok {
			isError = e
		}
		raw, _ := b.Get("content")
		text, images := resultContent(raw)
		out = append(out, transcript.TextBlock(resultHeader(name, isError)+"\n"+text))
		out = append(out, images...)
		n++
	}
	if n > 0 {
		m.SetBlocks(out)
	}
	return n
}

func resultHeader(name string, isError bool) string {
	if name = strings.TrimSpace(name); name == "" {
		name = "unknown"
	}
	if isError {
		return "[tool result, error] " + name
	}
	return "[tool result] " + name
}

// resultContent splits a result's content into its text (text blocks joined
// by newlines) and its image and document blocks.
func resultContent(raw []byte) (string, []*transcript.Block) {
	if len(raw) > 0 && raw[0] == '"' {
		s, _ := transcript.UnquoteBytes(raw)
		if len(s) == 0 {
			return "(no output)", nil
		}
		return string(s), nil
	}
	holder := transcript.NewMessage(transcript.Field{Key: "content", Value: raw})
	blocks, _ := holder.Blocks()
	var texts []string
	var images []*transcript.Block
	for _, b := range blocks {
		switch b.Type() {
		case transcript.BlockText:
			if s, ok := b.Text(); ok && s != "" {
				texts = append(texts, s)
			}
		case transcript.BlockImage, transcript.BlockDocument:
			images = append(images, b)
		}
	}
	if len(texts) == 0 {
		return "(no output)", images
	}
	return strings.Join(texts, "\n"), images
}

// toolsAsTextOn is the guard of the rule: the job offers no tools.
func toolsAsTextOn(env *stage.Env) bool { return env.Settings.Request.NoToolsOffered() }
