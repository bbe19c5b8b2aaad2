package metrics

import (
	"net/http"
	"net/http/pprof"
)

// PprofPath is where WithPprof serves Go's profiles.
const PprofPath = "/debug/pprof/"

// WithPprof returns h, and when on is true also Go's runtime profiles
// (net/http/pprof: the index, cmdline, profile, symbol, trace and every
// named profile such as heap and goroutine) under PprofPath, for
// `metrics.pprof: true`. Off, h is returned unchanged and /debug/pprof/ is
// whatever h makes of it (the worker's handler answers 404).
func WithPprof(h http.Handler, on bool) http.Handler {
	if !on {
		return h
	}
	mux := http.NewServeMux()
	mux.Handle("/", h)
	mux.HandleFunc(PprofPath, pprof.Index)
	mux.HandleFunc(PprofPath+"cmdline", pprof.Cmdline)
	mux.HandleFunc(PprofPath+"profile", pprof.Profile)
	mux.HandleFunc(PprofPath+"symbol", pprof.Symbol)
	mux.HandleFunc(PprofPath+"trace", pprof.Trace)
	return mux
}
