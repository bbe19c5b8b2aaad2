package pipeline

import (
	"fmt"
	"strings"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/stages/stage"
	"github.com/hygiene-dev/hygiene/internal/transcript"
)

// Resolver gives the rule settings of one decoded job: the configuration,
// then its tenant's overrides, then its own options (the runner knows the
// request best: its model's context window, its clock, its cache TTL
// state). An error is a job option no rule can honour, or one no setting
// has (settings.DecodeOptions), named as the job spelt it; the job becomes
// an invalid_job dead letter at stage "decode".
type Resolver func(t *transcript.Transcript) (stage.Settings, error)

// sections are the per-job settings sections of one layer below the job:
// the configuration's, or a tenant's resolved onto them.
type sections struct {
	images  settings.Images
	pruning settings.Pruning
	context settings.Context
}

// ResolverFor is the Resolver of a configuration, which must be valid
// (config.Validate). Each tenant's sections are resolved once, here; a job's
// options are decoded (settings.DecodeOptions of transcript.Options.Settings),
// which lays them on top (settings.Resolve) and has them checked
// by the same rules as the configuration's (settings.Validate).
func ResolverFor(cfg config.Config) Resolver {
	global := sections{cfg.Images.Images, cfg.Pruning, cfg.Context}
	tenants := make(map[string]sections, len(cfg.Tenants))
	for name, o := range cfg.Tenants {
		tenants[name] = sections{
			images:  settings.Resolve(cfg.Images.Images, o.Images, settings.Overlay[settings.Images]{}),
			pruning: settings.Resolve(cfg.Pruning, o.Pruning, settings.Overlay[settings.Pruning]{}),
			context: settings.Resolve(cfg.Context, o.Context, settings.Overlay[settings.Context]{}),
		}
	}
	missing, contract := cfg.Hygiene.MissingToolResultText, cfg.Contract.Mode
	return func(t *transcript.Transcript) (stage.Settings, error) {
		below, ok := tenants[t.Tenant]
		if !ok {
			below = global
		}
		o, err := settings.DecodeOptions(t.Options.Settings)
		if err != nil {
			return stage.Settings{}, err
		}
		s := stage.Settings{
			MissingToolResultText: missing,
			Images:                settings.Resolve(below.images, settings.Overlay[settings.Images]{}, o.Images),
			Pruning:               settings.Resolve(below.pruning, settings.Overlay[settings.Pruning]{}, o.Pruning),
			Context:               settings.Resolve(below.context, settings.Overlay[settings.Context]{}, o.Context),
			ContractMode:          contract,
			Request:               o.Request,
		}
		// The values below the job's were checked when the configuration
		// loaded; only a section the job sets can be out of range.
		var bad []string
		if o.Images.Set() {
			bad = settings.Validate(s.Images, settings.FromJob(o.Images))
		}
		if o.Pruning.Set() {
			bad = append(bad, settings.Validate(s.Pruning, settings.FromJob(o.Pruning))...)
		}
		if o.Context.Set() {
			bad = append(bad, settings.Validate(s.Context, settings.FromJob(o.Context))...)
		}
		if len(bad) > 0 {
			return s, fmt.Errorf("%s", strings.Join(bad, "; "))
		}
		return s, nil
	}
}
