package settings_test

import (
	"fmt"

	"github.com/hygiene-dev/hygiene/internal/settings"
)

// A section is resolved in one merge: the configuration's values, then the
// tenant's overlay (YAML), then the job's options (JSON). Validate names a
// bad value by the layer that set it.
func ExampleResolve() {
	defaults := settings.Images{MaxDimensionPx: 1200, MaxBytes: 5 << 20, MaxInputPixels: 25_000_000, MaxBase64Bytes: 64 << 20, MaxFrames: 64}
	tenant := settings.OverlayOf[settings.Images]("max_dimension_px: 800")
	job, err := settings.DecodeOption[settings.Images]([]byte(`{"max_bytes": 1048576}`), "options.images")
	if err != nil {
		panic(err)
	}
	images := settings.Resolve(defaults, tenant, job)
	fmt.Println(images.MaxDimensionPx, images.MaxBytes, images.MaxFrames)

	bad, _ := settings.DecodeOption[settings.Images]([]byte(`{"max_dimension_px": -1}`), "options.images")
	fmt.Println(settings.Validate(settings.Resolve(defaults, tenant, bad), settings.FromJob(bad)))

	_, err = settings.DecodeOption[settings.Images]([]byte(`{"max_input_pixels": 1}`), "options.images")
	fmt.Println(err)
	// Output:
	// 800 1048576 64
	// [options.images.max_dimension_px: must be at least 1, got -1]
	// options.images.max_input_pixels: a worker setting, which a job cannot set
}

// A job's settings options (transcript.Options.Settings) decode into the
// sections' overlays and the request keys; a bad one is named as the job
// spelt it.
func ExampleDecodeOptions() {
	opts, err := settings.DecodeOptions([]byte(`{"now_ms":1776000999000,"image_max_bytes":1048576,"pruning":{"mode":"cache-ttl","ttl_ms":60000}}`))
	if err != nil {
		panic(err)
	}
	defaults := settings.Images{MaxDimensionPx: 1200, MaxBytes: 5 << 20}
	images := settings.Resolve(defaults, settings.Overlay[settings.Images]{}, opts.Images)
	now, _ := opts.Now()
	fmt.Println(images.MaxDimensionPx, images.MaxBytes, opts.Pruning.Set(), now)

	_, err = settings.DecodeOptions([]byte(`{"image_max_bytes":1,"images":{"max_bytes":2}}`))
	fmt.Println(err)
	_, err = settings.DecodeOptions([]byte(`{"now":1}`))
	fmt.Println(err)
	// Output:
	// 1200 1048576 true 1776000999000
	// options.image_max_bytes: set twice (also as options.images.max_bytes)
	// options: unknown field "now"
}
