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
