package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// EffectiveSettings resolves what the rules use for one job: the worker's
// configuration, then the job tenant's overrides, then the job's own
// options (the runner knows the request best: its model's context window,
// its clock, its cache TTL state).
func EffectiveSettings(cfg config.Config, t *transcript.Transcript) stage.Settings {
	img, prune, _ := cfg.ForTenant(t.Tenant)
	o := t.Options
	s := stage.Settings{
		MissingToolResultText: cfg.Hygiene.MissingToolResultText,
		Images: stage.ImageSettings{
			MaxDimensionPx:           pick(o.ImageMaxDimensionPx, img.MaxDimensionPx),
			MaxBytes:                 pick(o.ImageMaxBytes, int(img.MaxBytes)),
			MaxInputPixels:           int(img.MaxInputPixels),
			MaxBase64Bytes:           int(img.MaxBase64Bytes),
			MaxFrames:                img.MaxFrames,
			ManyImagesThreshold:      img.ManyImagesThreshold,
			ManyImagesMaxDimensionPx: img.ManyImagesMaxDimensionPx,
			MaxImagesPerRequest:      img.MaxImagesPerRequest,
		},
		Pruning: stage.PruningSettings{
			Mode:                 prune.Mode,
			TTLMs:                prune.TTL.Milliseconds(),
			KeepLastAssistants:   prune.KeepLastAssistants,
			SoftTrimRatio:        prune.SoftTrimRatio,
			HardClearRatio:       prune.HardClearRatio,
			MinPrunableToolChars: prune.MinPrunableToolChars,
			SoftTrimMaxChars:     prune.SoftTrim.MaxChars,
			SoftTrimHeadChars:    prune.SoftTrim.HeadChars,
			SoftTrimTailChars:    prune.SoftTrim.TailChars,
			HardClearEnabled:     prune.HardClear.Enabled,
			HardClearPlaceholder: prune.HardClear.Placeholder,
			ToolsAllow:           prune.Tools.Allow,
			ToolsDeny:            prune.Tools.Deny,
		},
		ContextWindowTokens:             pick(o.ContextWindowTokens, 0),
		ContractMode:                    cfg.Contract.Mode,
		NoToolsOffered:                  !pick(o.ToolsOffered, true),
		AllowedToolNames:                o.AllowedToolNames,
		ReplayInvalid:                   o.ReplayInvalid,
		PreserveLatestAssistantThinking: o.PreserveLatestAssistantThinking,
	}
	if o.NowMs != nil {
		s.NowMs, s.HasNow = *o.NowMs, true
	}
	if jp := o.Pruning; jp != nil {
		p := &s.Pruning
		if jp.Mode != "" {
			p.Mode = jp.Mode
		}
		p.TTLMs = pick(jp.TTLMs, p.TTLMs)
		p.LastCacheTouchMs = pick(jp.LastCacheTouchMs, 0)
		p.SoftTrimRatio = pick(jp.SoftTrimRatio, p.SoftTrimRatio)
		p.HardClearRatio = pick(jp.HardClearRatio, p.HardClearRatio)
		p.MinPrunableToolChars = pick(jp.MinPrunableToolChars, p.MinPrunableToolChars)
		p.KeepLastAssistants = pick(jp.KeepLastAssistants, p.KeepLastAssistants)
		if st := jp.SoftTrim; st != nil {
			p.SoftTrimMaxChars = pick(st.MaxChars, p.SoftTrimMaxChars)
			p.SoftTrimHeadChars = pick(st.HeadChars, p.SoftTrimHeadChars)
			p.SoftTrimTailChars = pick(st.TailChars, p.SoftTrimTailChars)
		}
		if hc := jp.HardClear; hc != nil {
			p.HardClearEnabled = pick(hc.Enabled, p.HardClearEnabled)
			p.HardClearPlaceholder = pick(hc.Placeholder, p.HardClearPlaceholder)
		}
		if jp.Tools != nil {
			p.ToolsAllow, p.ToolsDeny = jp.Tools.Allow, jp.Tools.Deny
		}
	}
	return s
}

func pick[T any](v *T, def T) T {
	if v != nil {
		return *v
	}
	return def
}

// ValidateOptions rejects job options no rule can honour, naming the field.
// Out-of-range ratios and negative sizes are errors rather than silently
// clamped: the runner that sent them has a bug worth seeing.
func ValidateOptions(o transcript.Options) error {
	var bad []string
	positive := func(name string, v *int) {
		if v != nil && *v < 1 {
			bad = append(bad, fmt.Sprintf("options.%s must be at least 1, got %d", name, *v))
		}
	}
	positive("image_max_dimension_px", o.ImageMaxDimensionPx)
	positive("image_max_bytes", o.ImageMaxBytes)
	positive("context_window_tokens", o.ContextWindowTokens)
	if p := o.Pruning; p != nil {
		if p.Mode != "" && p.Mode != config.PruningOff && p.Mode != config.PruningCacheTTL {
			bad = append(bad, fmt.Sprintf("options.pruning.mode must be %q or %q, got %q", config.PruningOff, config.PruningCacheTTL, p.Mode))
		}
		for name, r := range map[string]*float64{"soft_trim_ratio": p.SoftTrimRatio, "hard_clear_ratio": p.HardClearRatio} {
			if r != nil && (*r < 0 || *r > 1) {
				bad = append(bad, fmt.Sprintf("options.pruning.%s must be within [0,1], got %v", name, *r))
			}
		}
		if p.TTLMs != nil && *p.TTLMs < 0 {
			bad = append(bad, fmt.Sprintf("options.pruning.ttl_ms must not be negative, got %d", *p.TTLMs))
		}
		if p.KeepLastAssistants != nil && *p.KeepLastAssistants < 0 {
			bad = append(bad, fmt.Sprintf("options.pruning.keep_last_assistants must not be negative, got %d", *p.KeepLastAssistants))
		}
		if p.MinPrunableToolChars != nil && *p.MinPrunableToolChars < 0 {
			bad = append(bad, fmt.Sprintf("options.pruning.min_prunable_tool_chars must not be negative, got %d", *p.MinPrunableToolChars))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("%s", strings.Join(bad, "; "))
}
