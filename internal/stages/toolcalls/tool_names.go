package toolcalls

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
	"github.com/hygiene-dev/hygiene/internal/transcript/jsontape"
)

// toolNamesStage is the report key and metric label of ToolNames.
const toolNamesStage = "tool_names"

// hashSuffixLen is the hex digits of the hash a wire name gets when its
// readable form collides or is too long.
const hashSuffixLen = 8

// defaultMaxToolName bounds a wire name when the target documents no
// maximum (every tool-calling API that documents one says 64).
const defaultMaxToolName = 64

// ToolNames renames, beyond OpenClaw (issue 21), every tool name the
// target refuses (its contract's ToolNames: Anthropic, Bedrock, OpenAI and
// Mistral want ^[a-zA-Z0-9_-]{1,64}$, Gemini also takes dots and colons
// after a letter or an underscore, 64 at most), alike in the history (the
// name of each tool call, the toolName of each result) and in the job's
// `tools`, with one map (WireToolNames). Such names are real: Gemini takes
// `browser.open`, MCP tools are `server:tool`, and a session that moves from
// Gemini to Claude carries them. The map, wire name to original, is the
// ready payload's tool_names, so the runner can map the model's calls back;
// the report counts the names renamed ("renamed"). A history name that is
// the wire form of a name the job declares (allowed_tool_names, `tools`),
// and not declared itself, is read as already renamed (see declaredNames).
//
// It runs after the rules that read the names as the runner knows them
// (input validation and allowed_tool_names, §3.5) and before the contract
// check, which then checks the names as sent.
func ToolNames() stage.Stage {
	return stage.Stage{Name: toolNamesStage, Apply: func(_ context.Context, t *transcript.Transcript, env *stage.Env) error {
		limits := env.Policy.Contract.ToolNames
		declared := declaredNames(t, env, limits)
		if declared == nil && !env.MayHold(transcript.FactToolNameOff) {
			return nil // no name declared, and every name of the history plain (the decode read them)
		}
		var names []string
		var known map[string]string // history names that are a declared name's wire form
		eachToolName(t, func(raw []byte, name string) {
			plain := raw != nil && jsontape.PlainToolName(raw) // valid for every target
			if raw != nil && (!plain || declared != nil) {
				name = unquoted(raw) // decoded only when it must be looked at
			}
			if raw != nil && declared != nil {
				if orig, ok := declared.wireOf(name); ok {
					if known == nil {
						known = map[string]string{}
					}
					known[name] = orig
					return
				}
			}
			if !plain && name != "" && !limits.Valid(name) {
				names = append(names, name)
			}
		})
		if len(names) == 0 && len(known) == 0 {
			return nil
		}
		var all []string // every name, valid or not: a new name must not take one
		eachToolName(t, func(raw []byte, name string) {
			if raw != nil {
				name = unquoted(raw)
				if _, ok := known[name]; ok {
					return // already the wire name of a declared name: not taken from it
				}
			}
			all = append(all, name)
		})
		var wire map[string]string
		if len(names) > 0 {
			wire = WireToolNames(names, all, limits)
		}
		for _, m := range t.Messages {
			role := m.Role()
			if role == transcript.RoleToolResult || role == transcript.RoleTool {
				if name, ok := m.String("toolName"); ok && wire[name] != "" {
					m.SetString("toolName", wire[name])
				}
				continue
			}
			if role != transcript.RoleAssistant {
				continue
			}
			blocks, _ := m.Blocks()
			for _, b := range blocks {
				if !b.IsToolCall() {
					continue
				}
				if name, _ := b.String("name"); wire[name] != "" {
					b.SetString("name", wire[name])
				}
			}
		}
		if len(t.Options.Tools) > 0 && len(wire) > 0 {
			tools := slices.Clone(t.Options.Tools) // the job's slice is not the rule's to edit
			for i := range tools {
				if w := wire[tools[i].Name]; w != "" {
					tools[i].Name = w
				}
			}
			t.Options.Tools = tools
		}
		t.ToolNames = make(map[string]string, len(wire)+len(known))
		for w, original := range known {
			t.ToolNames[w] = original
		}
		for original, w := range wire {
			t.ToolNames[w] = original
		}
		env.Report.Add(toolNamesStage, "renamed", len(wire))
		return nil
	}}
}

// declaredNames is the job's own list of its tools' names, as the runner
// knows them: allowed_tool_names and the names of `tools`. A history name
// that is not declared but is the wire form of a declared name the target
// refuses is that name, renamed by an earlier pass (the chain's output,
// sanitized again): it is mapped back in tool_names and does not take the
// wire name from the declared one, so a second pass gives the same payload.
func declaredNames(t *transcript.Transcript, env *stage.Env, limits contract.IDLimits) allowList {
	names := env.Settings.Request.AllowedToolNames
	if len(t.Options.Tools) > 0 {
		names = slices.Clone(names)
		for _, tool := range t.Options.Tools {
			names = append(names, tool.Name)
		}
	}
	return newAllowList(names, limits)
}

// eachToolName calls fn with every tool name of the job: each call's name
// and each result's toolName in the history as their raw JSON strings
// (name ""), and each tool of `tools` as its name (raw nil).
func eachToolName(t *transcript.Transcript, fn func(raw []byte, name string)) {
	for _, m := range t.Messages {
		switch m.Role() {
		case transcript.RoleToolResult, transcript.RoleTool:
			if raw, ok := m.Get("toolName"); ok && len(raw) > 0 && raw[0] == '"' {
				fn(raw, "")
			}
		case transcript.RoleAssistant:
			blocks, _ := m.Blocks()
			for _, b := range blocks {
				if !b.IsToolCall() {
					continue
				}
				if raw, ok := b.Get("name"); ok && len(raw) > 0 && raw[0] == '"' {
					fn(raw, "")
				} else {
					fn(nil, "")
				}
			}
		}
	}
	for _, tool := range t.Options.Tools {
		fn(nil, tool.Name)
	}
}

// unquoted is a raw JSON string's value ("" when it is not one).
func unquoted(raw []byte) string {
	b, _ := transcript.UnquoteBytes(raw)
	return string(b)
}

// WireToolNames maps each name of refused (names limits does not accept)
// to a name it accepts, distinct from every other wire name and from every
// name of taken (all the names of the job, refused or not). It is a pure
// function of the two sets, whatever their order or repeats.
//
// A name keeps its readable form where it can: every character the target
// refuses becomes an underscore (`github.create_issue` →
// `github_create_issue`, `a/b` → `a_b`), and a name that cannot start as it
// does gets the prefix "t_". When that form is taken, is empty or is too
// long, the name is cut and gets "_" and the first hashSuffixLen hex digits
// of its SHA-256 (the digits follow on from the hash's next ones, should
// even that be taken).
func WireToolNames(refused, taken []string, limits contract.IDLimits) map[string]string {
	maxLen := limits.MaxLen
	if maxLen <= 0 {
		maxLen = defaultMaxToolName
	}
	used := make(map[string]bool, len(taken))
	for _, name := range taken {
		if limits.Valid(name) {
			used[name] = true
		}
	}
	sorted := slices.Clone(refused)
	slices.Sort(sorted)
	sorted = slices.Compact(sorted)
	out := make(map[string]string, len(sorted))
	var long []string // names whose readable form did not fit, hashed after every readable one
	for _, name := range sorted {
		if w := readableToolName(name, limits); len(w) <= maxLen && limits.Valid(w) && !used[w] {
			used[w] = true
			out[name] = w
			continue
		}
		long = append(long, name)
	}
	for _, name := range long {
		w := hashedToolName(name, readableToolName(name, limits), maxLen, limits, used)
		used[w] = true
		out[name] = w
	}
	return out
}

// WireForms are the names WireToolNames gives a refused name: its readable
// form when that fits the limits, and its first hashed form (the one it
// gets when the readable form is taken or too long). A name that two others
// push past its first hashed form is not among them.
func WireForms(name string, limits contract.IDLimits) []string {
	maxLen := limits.MaxLen
	if maxLen <= 0 {
		maxLen = defaultMaxToolName
	}
	readable := readableToolName(name, limits)
	forms := []string{hashedToolName(name, readable, maxLen, limits, nil)}
	if len(readable) <= maxLen && limits.Valid(readable) {
		forms = append(forms, readable)
	}
	return forms
}

// readableToolName replaces each character the target refuses with an
// underscore and prefixes "t_" when the first character cannot start a name.
func readableToolName(name string, limits contract.IDLimits) string {
	var sb strings.Builder
	for _, r := range name {
		if r < 0x80 && limits.Valid("a"+string(r)) {
			sb.WriteRune(r)
		} else {
			sb.WriteByte('_')
		}
	}
	w := sb.String()
	if w != "" && !limits.Valid(w[:1]+"a") {
		w = "t_" + w
	}
	return w
}

// hashedToolName is base cut to fit, "_" and hex digits of name's SHA-256:
// the first hashSuffixLen, or, while that name is used, the next window of
// the hash (and then of the hash of the hash).
func hashedToolName(name, base string, maxLen int, limits contract.IDLimits, used map[string]bool) string {
	sum := sha256.Sum256([]byte(name))
	digits := hex.EncodeToString(sum[:])
	if base == "" {
		base = "t"
	}
	if keep := max(maxLen-1-hashSuffixLen, 1); len(base) > keep {
		base = base[:keep]
	}
	if !limits.Valid(base + "_" + digits[:hashSuffixLen]) {
		return base + "_" + digits[:hashSuffixLen] // limits no suffix can meet: nothing better exists
	}
	for off := 0; ; off++ {
		if off+hashSuffixLen > len(digits) {
			next := sha256.Sum256([]byte(digits))
			digits, off = hex.EncodeToString(next[:]), 0
		}
		w := base + "_" + digits[off:off+hashSuffixLen]
		if !used[w] && limits.Valid(w) {
			return w
		}
	}
}
