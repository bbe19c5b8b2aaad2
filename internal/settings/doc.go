// Package settings holds the per-job settings sections, images, pruning
// and context (the context-window fit), in one shape: each field is declared once, with its YAML key (the
// configuration file, HYGIENE_ variables, a tenant's overrides) and its JSON
// key (a job's options) side by side.
//
// The same section type is used three times. The configuration's images:,
// pruning: and context: sections are the defaults. A tenant's overrides
// under tenants.<name> are an Overlay of the section, decoded from YAML. A
// job's options.images, options.pruning and options.context are an
// Overlay of the section too,
// decoded from the job's JSON, strictly: an unknown key, or a key the
// section tags `job:"no"` (a worker bound such as images.max_input_pixels),
// is an error naming the option. Resolve lays the
// overlays onto the defaults, the one merge; Validate checks the result
// with the section's one set of range rules and names each bad value by
// the layer that set it: the config key ("pruning.soft_trim_ratio"), the
// tenant's ("tenants.acme.pruning.soft_trim_ratio") or the job option
// ("options.pruning.soft_trim_ratio").
//
// Two wire forms of design §2 differ from the YAML and are kept: a
// duration is written as a duration string under its YAML key ("ttl: 5m")
// and as integer milliseconds under its JSON key ("ttl_ms": 300000), one
// field of type Duration carrying both tags; and the image options may be
// sent at the top of options as image_max_dimension_px and image_max_bytes
// (ImageAliases maps those names onto options.images), the context options
// as context_fit and max_output_tokens (ContextAliases, onto
// options.context).
//
// May import: internal/transcript/jsontape.
package settings
