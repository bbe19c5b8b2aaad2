package media

import (
	"context"
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/contract"
	"github.com/hygiene-dev/hygiene/internal/deadletter"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// ContextFit returns the stage "context_fit" (issue 30): the request must
// fit its target model's context window with room for the output it
// reserves (env.Budget). It runs after the request-size cap, when every
// rule that changes sizes has run.
//
// A request whose cheap bound (the counter's MessageBound and
// RequestBound, lengths alone) is within the room is not counted at all;
// one whose bound is over is counted from the newest message back only
// until the exact counts and the older messages' bounds fit
// (contract.Budget.CountRequest). One counted over it is, by the job's
// context_fit mode:
//
//   - report: written as it is; report.context_fit has the figures and
//     fits false, and the contract lists the overflow (as contract.mode
//     report lists a violation) without refusing it;
//   - refuse: the dead letter context_overflow, whose sentence states the
//     count, the tokenizer, the reserve and the window;
//   - trim (the default): OpenClaw's own tools first, the pruning rule's
//     trim without its TTL gate or ratios, on the tool results pruning
//     may touch (from the first user message up to the
//     pruning.keep_last_assistants-th assistant from the end, of the
//     tools pruning.tools allows), oldest first and only while over:
//     each is soft-trimmed (unless even every one cleared would be over:
//     then each trim would be cleared), then each is hard-cleared to the
//     pruning placeholder; the report counts the final states. Then the
//     oldest turns are dropped, whole messages at a user message (so a
//     tool call is never separated from its result and
//     no kept turn is edited but the first, which gains the placeholder),
//     at the first such boundary from which the rest fits: compaction and
//     branch summaries are kept wherever they are, the system prompt and
//     the tools are not messages, and the latest user message with
//     everything after it is always kept. The first kept user message
//     gets, in front of its content, one text block saying how many turns
//     and messages were left out (ContextFitMarker). What is left starts
//     with a user-side message and alternates as before: the cut removes
//     a run that ends right before a user message and starts at the
//     beginning, so no two assistant turns meet.
//
// When even the kept part is over the room the job is context_overflow
// in every mode but report.
func ContextFit() stage.Stage {
	const name = "context_fit"
	return stage.Stage{Name: name, On: contextFitOn, Apply: func(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
		if !contextFitOn(env) {
			return nil
		}
		b := env.Budget
		system, tools := contract.FixedParts(t.Options)
		c, counted := b.CountRequest(t.Messages, system, tools)
		if !counted || c.Total <= b.Room() {
			unedited(env, c.Total)
			return nil
		}
		mode := env.Settings.Context.Fit
		if mode == "" {
			mode = settings.FitTrim
		}
		rep := &stage.ContextFitReport{Mode: mode, Tokenizer: b.Counter.Name(), Window: b.Window, Reserve: b.Reserve,
			Room: b.Room(), TokensBefore: c.Total, TokensAfter: c.Total}
		env.Report.ContextFit = rep
		switch mode {
		case settings.FitReport:
			unedited(env, c.Total)
			return nil
		case settings.FitRefuse:
			return &stage.Reject{Code: deadletter.CodeContextOverflow,
				Msg: "messages: " + b.Over(c.Total) + " (options.context_fit is refuse)"}
		}
		f := fitter{b: b, counts: c.Messages, total: c.Total}
		if err := f.trimResults(ctx, t.Messages, newPruningConfig(env.Settings.Pruning), rep); err != nil {
			return err
		}
		if f.total > b.Room() {
			t.Messages = f.dropTurns(t.Messages, rep)
		}
		rep.TokensAfter = f.total
		env.Report.Add(name, "soft_trimmed", rep.SoftTrimmed)
		env.Report.Add(name, "hard_cleared", rep.HardCleared)
		env.Report.Add(name, "turns_dropped", rep.TurnsDropped)
		env.Report.Add(name, "messages_dropped", rep.MessagesDropped)
		if f.total > b.Room() {
			return &stage.Reject{Code: deadletter.CodeContextOverflow, Msg: fmt.Sprintf(
				"messages: %s, even with %d tool results trimmed, %d cleared and %d turns (%d messages) left out: the system prompt, the tools, the summaries and the latest user turn with what follows it are always kept",
				b.Over(f.total), rep.SoftTrimmed, rep.HardCleared, rep.TurnsDropped, rep.MessagesDropped)}
		}
		rep.Fits = true
		return nil
	}}
}

// unedited is the end of a fit that edited nothing: the request's tokens
// (the cheap bound's when that proved the fit, else every message
// counted, as contract.Budget.CountRequest gives them) are proved for the
// contract (env.WindowFit), and what the rules before the fit proved
// stands (env.NoEdit). A fit that trims proves nothing: the contract
// counts what it wrote.
func unedited(env *stage.Env, tokens int) {
	env.NoEdit()
	env.WindowFit = env.Prove(tokens)
}

// ContextFitMarker words the text block that stands, at the start of the
// first kept user message, for the turns the fit left out: the count of
// user turns and of messages.
const ContextFitMarker = "[%d earlier turns (%d messages) left out to fit the model's context window]"

// fitter is one fit: the budget, each message's tokens and the total.
type fitter struct {
	b       contract.Budget
	counts  []int
	total   int
	cleared *int // clearedTotal, once taken
}

// recount sets message i's tokens after an edit.
func (f *fitter) recount(i int, m *transcript.Message) {
	n := f.b.Message(m)
	f.total += n - f.counts[i]
	f.counts[i] = n
}

// trimResults soft-trims, then hard-clears, the tool results the pruning
// rule may touch, oldest first, while the total is over the room.
func (f *fitter) trimResults(ctx context.Context, msgs []*transcript.Message, cfg pruningConfig, rep *stage.ContextFitReport) error {
	cutoff, ok := assistantCutoff(msgs, cfg.keepLastAssistants)
	if !ok {
		return nil
	}
	var results []int
	for i := firstUser(msgs); i < cutoff; i++ {
		if m := msgs[i]; m.Role() == transcript.RoleToolResult {
			if name, _ := m.String("toolName"); cfg.tools.prunable(name) {
				results = append(results, i)
			}
		}
	}
	room := f.b.Room()
	trimmed := make([]bool, len(results))
	for k, i := range results {
		if f.total <= room || f.clearedTotal(msgs, results, cfg.placeholder) > room {
			break // fits, or even every result cleared would not: each trim would be cleared
		}
		if k&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if text, ok := softTrim(msgs[i], cfg.trim); ok && setResultText(msgs[i], text) {
			f.recount(i, msgs[i])
			trimmed[k] = true
			rep.SoftTrimmed++
		}
	}
	for k, i := range results {
		if f.total <= room {
			return nil
		}
		if k&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if setResultText(msgs[i], cfg.placeholder) {
			f.recount(i, msgs[i])
			rep.HardCleared++
			if trimmed[k] {
				rep.SoftTrimmed-- // the report counts final states
			}
		}
	}
	return nil
}

// clearedTotal is the total once every one of results is cleared to
// placeholder, from one count of a cleared result per tool name; it is
// taken once per fit (cleared, then kept).
func (f *fitter) clearedTotal(msgs []*transcript.Message, results []int, placeholder string) int {
	if f.cleared != nil {
		return *f.cleared
	}
	byName := map[string]int{}
	total := f.total
	for _, i := range results {
		name, _ := msgs[i].String("toolName")
		n, ok := byName[name]
		if !ok {
			content := transcript.TextBlock(placeholder).AppendJSON([]byte{'['})
			n = f.b.Counter.Message(transcript.NewMessage(
				transcript.Field{Key: "role", Value: transcript.JSONString(transcript.RoleToolResult)},
				transcript.Field{Key: "toolName", Value: transcript.JSONString(name)},
				transcript.Field{Key: "content", Value: append(content, ']')}))
			byName[name] = n
		}
		total += n - f.counts[i]
	}
	f.cleared = &total
	return total
}

// dropTurns leaves out the oldest messages before the first user message
// from which the rest fits (at the latest, the latest user message), the
// summaries excepted, and puts the ContextFitMarker block in front of that
// user message's content. It returns the messages left; with no user
// message, or when nothing can go, msgs as they are.
func (f *fitter) dropTurns(msgs []*transcript.Message, rep *stage.ContextFitReport) []*transcript.Message {
	latest := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role() == transcript.RoleUser {
			latest = i
			break
		}
	}
	room := f.b.Room()
	// the marker's cost, bounded by that of a message of its own (the
	// exact count of the edited message is taken once it is made)
	marker := f.b.Counter.Message(transcript.NewMessage(
		transcript.Field{Key: "role", Value: transcript.JSONString(transcript.RoleUser)},
		transcript.Field{Key: "content", Value: transcript.JSONString(fmt.Sprintf(ContextFitMarker, len(msgs), len(msgs)))}))
	dropped, turns, messages := 0, 0, 0 // the tokens, user turns and messages before k that go
	for k := 0; k <= latest; k++ {
		m := msgs[k]
		if m.Role() == transcript.RoleUser && messages > 0 && (f.total-dropped+marker <= room || k == latest) {
			out := make([]*transcript.Message, 0, len(msgs)-messages)
			for _, old := range msgs[:k] {
				if summary(old.Role()) {
					out = append(out, old)
				}
			}
			addMarker(m, turns, messages)
			f.total -= dropped
			f.recount(k, m)
			rep.TurnsDropped, rep.MessagesDropped = turns, messages
			return append(out, msgs[k:]...)
		}
		if summary(m.Role()) {
			continue
		}
		dropped += f.counts[k]
		messages++
		if m.Role() == transcript.RoleUser {
			turns++
		}
	}
	return msgs
}

// summary reports whether a message of the role is a compaction or branch
// summary, which the fit always keeps.
func summary(role string) bool {
	return role == transcript.RoleCompactionSummary || role == transcript.RoleBranchSummary
}

// addMarker puts the ContextFitMarker block for turns user turns and
// messages messages in front of the user message m's content; a string
// content becomes its text block after it.
func addMarker(m *transcript.Message, turns, messages int) {
	marker := transcript.TextBlock(fmt.Sprintf(ContextFitMarker, turns, messages))
	if s, isString := m.ContentString(); isString {
		m.SetBlocks([]*transcript.Block{marker, transcript.TextBlock(s)})
		return
	}
	blocks, _ := m.Blocks()
	m.SetBlocks(append([]*transcript.Block{marker}, blocks...))
}

// contextFitOn is the guard of the context-window fit: the job has a
// token budget.
func contextFitOn(env *stage.Env) bool { return env.Budget.Active() }
