package settings

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"go.yaml.in/yaml/v3"
)

// Images bounds every image of a job (spec §3.3 and the providers' limits).
//
// A job may set the output limits (max_dimension_px, max_bytes and the
// three that lower the target's documented caps). The decoder's safety
// bounds (max_input_pixels, max_base64_bytes, max_frames) are `job:"no"`:
// they protect the worker, so the job that is bounded cannot raise them.
// The worker's image pool and cache, which the configuration's images:
// section also holds, are not per-job settings: package images declares
// them (images.Config), and neither a tenant nor a job has them.
type Images struct {
	// MaxDimensionPx is the longest side of an image sent on, in pixels.
	MaxDimensionPx int `yaml:"max_dimension_px" json:"max_dimension_px"`
	// MaxBytes caps an image's base64 length.
	MaxBytes int64 `yaml:"max_bytes" json:"max_bytes"`
	// MaxInputPixels refuses to decode an image with more pixels.
	MaxInputPixels int64 `yaml:"max_input_pixels" json:"max_input_pixels" job:"no"`
	// MaxBase64Bytes refuses to decode a larger base64 image.
	MaxBase64Bytes int64 `yaml:"max_base64_bytes" json:"max_base64_bytes" job:"no"`
	// MaxFrames refuses to decode an animation with more frames.
	MaxFrames int `yaml:"max_frames" json:"max_frames" job:"no"`
	// ManyImagesThreshold, ManyImagesMaxDimensionPx and MaxImagesPerRequest
	// lower the target's documented limits (package contract): above so
	// many images in one request a smaller side applies, and older images
	// beyond the request cap become the stale placeholder. 0 keeps the
	// target's own value; a positive value applies where it is stricter.
	ManyImagesThreshold      int `yaml:"many_images_threshold" json:"many_images_threshold"`
	ManyImagesMaxDimensionPx int `yaml:"many_images_max_dimension_px" json:"many_images_max_dimension_px"`
	MaxImagesPerRequest      int `yaml:"max_images_per_request" json:"max_images_per_request"`
}

// ImageAliases are the names design §2 gives two image options at the top
// of a job's options, each mapped to its key in options.images. A job may
// use either spelling of a setting, not both.
var ImageAliases = map[string]string{
	"image_max_dimension_px": "max_dimension_px",
	"image_max_bytes":        "max_bytes",
}

// The values of Pruning.Mode.
const (
	PruningOff      = "off"
	PruningCacheTTL = "cache-ttl"
)

// Pruning is spec §3.18's context pruning: the configuration's default,
// a tenant's, or a job's options.pruning.
type Pruning struct {
	// Mode is PruningOff or PruningCacheTTL (only cache-ttl prunes).
	Mode string `yaml:"mode" json:"mode"`
	// TTL is how long after the last cache touch pruning may run: "ttl: 5m"
	// in YAML, "ttl_ms": 300000 in a job.
	TTL Duration `yaml:"ttl" json:"ttl_ms"`
	// LastCacheTouchMs is the job's TTL clock (the runner keeps it and
	// resets it when the report says pruning ran); 0 = never touched, the
	// TTL gate stays shut. It is job state, so YAML cannot set it.
	LastCacheTouchMs int64 `yaml:"-" json:"last_cache_touch_ms"`
	// KeepLastAssistants: the newest this many assistant messages, and
	// what follows them, are never pruned.
	KeepLastAssistants int `yaml:"keep_last_assistants" json:"keep_last_assistants"`
	// SoftTrimRatio and HardClearRatio are the shares of the context
	// window from which results are soft-trimmed and hard-cleared.
	SoftTrimRatio  float64 `yaml:"soft_trim_ratio" json:"soft_trim_ratio"`
	HardClearRatio float64 `yaml:"hard_clear_ratio" json:"hard_clear_ratio"`
	// MinPrunableToolChars: hard-clear only when the prunable tool results
	// hold at least this many chars.
	MinPrunableToolChars int       `yaml:"min_prunable_tool_chars" json:"min_prunable_tool_chars"`
	SoftTrim             SoftTrim  `yaml:"soft_trim" json:"soft_trim"`
	HardClear            HardClear `yaml:"hard_clear" json:"hard_clear"`
	Tools                Tools     `yaml:"tools" json:"tools"`
}

// SoftTrim sets how a large tool result is cut to its head and tail.
type SoftTrim struct {
	MaxChars  int `yaml:"max_chars" json:"max_chars"`
	HeadChars int `yaml:"head_chars" json:"head_chars"`
	TailChars int `yaml:"tail_chars" json:"tail_chars"`
}

// HardClear sets whether and how old tool results are replaced whole.
type HardClear struct {
	Enabled     bool   `yaml:"enabled" json:"enabled"`
	Placeholder string `yaml:"placeholder" json:"placeholder"`
}

// Tools selects prunable tools by glob; deny wins, an empty allow = all.
// An overlay that sets one list replaces that list whole and keeps the
// other.
type Tools struct {
	Allow []string `yaml:"allow" json:"allow"`
	Deny  []string `yaml:"deny" json:"deny"`
}

// Duration is a time.Duration whose YAML form is a duration string ("5m",
// as time.ParseDuration reads it) and whose JSON form is an integer number
// of milliseconds (design §2's ttl_ms). A JSON value beyond what a
// Duration holds (about 292 years) is clamped to the largest one, which
// behaves the same: such a TTL never passes.
type Duration time.Duration

// Milliseconds is d in whole milliseconds.
func (d Duration) Milliseconds() int64 { return time.Duration(d).Milliseconds() }

// String is d as time.Duration writes it ("5m0s").
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var td time.Duration
	if err := n.Decode(&td); err != nil {
		return err
	}
	*d = Duration(td)
	return nil
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalJSON reads integer milliseconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var ms int64
	if err := json.Unmarshal(data, &ms); err != nil {
		return fmt.Errorf("must be an integer number of milliseconds")
	}
	const most = math.MaxInt64 / int64(time.Millisecond)
	switch {
	case ms > most:
		*d = Duration(math.MaxInt64)
	case ms < -most:
		*d = Duration(math.MinInt64)
	default:
		*d = Duration(time.Duration(ms) * time.Millisecond)
	}
	return nil
}
