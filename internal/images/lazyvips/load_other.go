//go:build !linux || !amd64

package lazyvips

// Load does nothing here: govips links libvips, so the loader has mapped
// it before main.
func Load() error { return nil }
