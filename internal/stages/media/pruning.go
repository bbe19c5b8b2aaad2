package media

import (
	"context"
	"math"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Defaults of spec §3.18, used where a setting is out of its range.
const (
	defaultSoftTrimRatio        = 0.3
	defaultHardClearRatio       = 0.5
	defaultHardClearPlaceholder = "[Old tool result content cleared]"
)

// Pruning returns the stage "pruning": spec §3.18's context pruning. It is
// stateless: the runner keeps the TTL clock, sends it as
// Settings.Pruning.LastCacheTouchMs with Settings.Request.NowMs, and resets it when
// Report.Pruning.Ran says the prune changed something.
//
// It runs only in mode "cache-ttl", with a context window, and when the TTL
// gate is open: a last cache touch is known (> 0), the TTL is > 0, the job
// carries the runner's clock (now_ms; the worker never reads its own), and
// now - last touch >= TTL. Then, among the tool results from the first user
// message up to the keepLastAssistants-th assistant from the end, results
// of prunable tools are soft-trimmed when the estimate is at least
// softTrimRatio of the window, and hard-cleared oldest first while it is at
// least hardClearRatio (and at least minPrunableToolChars of them remain).
// Only tool-result content changes; ids, names, isError and order stay.
func Pruning() stage.Stage {
	return stage.Stage{Name: "pruning", On: pruningOn, Apply: applyPruning}
}

// pruningConfig is settings.Pruning clamped to the spec's ranges.
type pruningConfig struct {
	keepLastAssistants int
	softTrimRatio      float64
	hardClearRatio     float64
	minPrunableChars   int64
	trim               trimSettings
	hardClear          bool
	placeholder        string
	tools              toolFilter
}

func newPruningConfig(s settings.Pruning) pruningConfig {
	placeholder := strings.TrimFunc(s.HardClear.Placeholder, isJSSpace)
	if placeholder == "" {
		placeholder = defaultHardClearPlaceholder
	}
	return pruningConfig{
		keepLastAssistants: max(0, s.KeepLastAssistants),
		softTrimRatio:      clampRatio(s.SoftTrimRatio, defaultSoftTrimRatio),
		hardClearRatio:     clampRatio(s.HardClearRatio, defaultHardClearRatio),
		minPrunableChars:   int64(max(0, s.MinPrunableToolChars)),
		trim: trimSettings{
			maxChars:  max(0, s.SoftTrim.MaxChars),
			headChars: max(0, s.SoftTrim.HeadChars),
			tailChars: max(0, s.SoftTrim.TailChars),
		},
		hardClear:   s.HardClear.Enabled,
		placeholder: placeholder,
		tools:       newToolFilter(s.Tools.Allow, s.Tools.Deny),
	}
}

// clampRatio clamps r to [0,1]; NaN takes the default.
func clampRatio(r, def float64) float64 {
	if math.IsNaN(r) {
		return def
	}
	return min(1, max(0, r))
}

// ttlGateOpen reports whether the cache TTL has passed since the last
// cache touch, by the runner's clock.
func ttlGateOpen(s stage.Settings) bool {
	p := s.Pruning
	ttlMs := p.TTL.Milliseconds()
	now, hasNow := s.Request.Now()
	return p.Mode == settings.PruningCacheTTL && hasNow && p.LastCacheTouchMs > 0 && ttlMs > 0 &&
		now-p.LastCacheTouchMs >= ttlMs
}

// prunable is one tool result pruning may change, with its estimate and
// the content it gets.
type prunable struct {
	index   int
	chars   int64
	text    string // the new single text; "" with neither flag set: unchanged
	trimmed bool
	cleared bool
}

func applyPruning(ctx context.Context, t *transcript.Transcript, env *stage.Env) error {
	if !pruningOn(env) {
		return nil
	}
	cfg := newPruningConfig(env.Settings.Pruning)
	window := float64(int64(env.Settings.Request.ContextWindow()) * charsPerToken)
	msgs := t.Messages
	cutoff, ok := assistantCutoff(msgs, cfg.keepLastAssistants)
	if !ok {
		return nil
	}
	start := firstUser(msgs)
	est := newEstimator(env.Policy, msgs)
	var total int64
	for i, m := range msgs {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		total += est.message(i, m)
	}
	if float64(total)/window < cfg.softTrimRatio {
		return nil
	}
	var results []prunable
	for i := start; i < cutoff; i++ {
		m := msgs[i]
		if m.Role() != transcript.RoleToolResult {
			continue
		}
		name, _ := m.String("toolName")
		if !cfg.tools.prunable(name) {
			continue
		}
		p := prunable{index: i, chars: est.message(i, m)}
		if text, ok := softTrim(m, cfg.trim); ok {
			after := weightedLen(text)
			total += after - p.chars
			p.chars, p.text, p.trimmed = after, text, true
		}
		results = append(results, p)
	}
	if cfg.hardClear && float64(total)/window >= cfg.hardClearRatio {
		var sum int64
		for _, p := range results {
			sum += p.chars
		}
		if sum >= cfg.minPrunableChars {
			after := weightedLen(cfg.placeholder)
			for k := range results {
				if float64(total)/window < cfg.hardClearRatio {
					break
				}
				p := &results[k]
				total += after - p.chars
				p.chars, p.text, p.cleared = after, cfg.placeholder, true
			}
		}
	}
	writePruned(msgs, results, env.Report)
	return nil
}

// writePruned gives each changed tool result its single text block and
// reports what changed; a result whose content already is that block is
// not a change.
func writePruned(msgs []*transcript.Message, results []prunable, r *stage.Report) {
	trimmed, cleared := 0, 0
	for _, p := range results {
		if !p.trimmed && !p.cleared {
			continue
		}
		if !setResultText(msgs[p.index], p.text) {
			continue
		}
		if p.cleared {
			cleared++
		} else {
			trimmed++
		}
	}
	r.Pruning.SoftTrimmed += trimmed
	r.Pruning.HardCleared += cleared
	if trimmed+cleared > 0 {
		r.Pruning.Ran = true
	}
	r.Add("pruning", "soft_trimmed", trimmed)
	r.Add("pruning", "hard_cleared", cleared)
}

// setResultText makes a tool result's content the single text block text,
// and reports whether that changed it (a result whose content already is
// that block is left alone).
func setResultText(m *transcript.Message, text string) bool {
	content := transcript.TextBlock(text).AppendJSON([]byte{'['})
	content = append(content, ']')
	if old, _ := m.Get("content"); string(old) == string(content) {
		return false
	}
	m.Set("content", content)
	return true
}

// assistantCutoff returns the index of the keep-th assistant from the end
// (len(msgs) when keep is 0); ok is false when there are fewer assistants.
func assistantCutoff(msgs []*transcript.Message, keep int) (int, bool) {
	if keep <= 0 {
		return len(msgs), true
	}
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role() == transcript.RoleAssistant {
			keep--
			if keep == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

// firstUser returns the index of the first user message, or len(msgs):
// everything before it is protected.
func firstUser(msgs []*transcript.Message) int {
	for i, m := range msgs {
		if m.Role() == transcript.RoleUser {
			return i
		}
	}
	return len(msgs)
}

// pruningOn is the guard of §3.18: the TTL gate is open and the job gives
// its context window.
func pruningOn(env *stage.Env) bool {
	return ttlGateOpen(env.Settings) && env.Settings.Request.ContextWindow() > 0
}
