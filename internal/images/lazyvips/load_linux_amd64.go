package lazyvips

// #cgo pkg-config: vips
// const char *hygiene_vips_load(void);
import "C"

import "errors"

// Load loads libvips and looks up every function govips calls, once per
// process, or returns why it cannot (dlerror's message).
func Load() error {
	if msg := C.hygiene_vips_load(); msg != nil {
		return errors.New("loading libvips.so.42: " + C.GoString(msg))
	}
	return nil
}
