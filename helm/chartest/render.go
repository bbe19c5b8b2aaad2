package chartest

import (
	"fmt"
	"maps"
	"slices"

	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint/support"
	"helm.sh/helm/v3/pkg/releaseutil"
	"helm.sh/helm/v3/pkg/strvals"
)

// ChartDir is the chart under test, relative to this package.
const ChartDir = "../hygiene-worker"

// AllFeaturesValues switches every optional feature of the chart on.
const AllFeaturesValues = ChartDir + "/ci/all-features-values.yaml"

// KubeVersion is the cluster version the chart is rendered for (helm
// template's default, v1.20, is below the chart's kubeVersion).
var KubeVersion = chartutil.KubeVersion{Version: "v1.30.0", Major: "1", Minor: "30"}

// Values builds chart values as `helm -f FILE --set a.b=c` does: the file
// (if any), then each --set expression.
func Values(file string, sets ...string) (map[string]any, error) {
	vals := map[string]any{}
	if file != "" {
		v, err := chartutil.ReadValuesFile(file)
		if err != nil {
			return nil, fmt.Errorf("read values %s: %w", file, err)
		}
		vals = v.AsMap()
	}
	for _, s := range sets {
		if err := strvals.ParseInto(s, vals); err != nil {
			return nil, fmt.Errorf("--set %s: %w", s, err)
		}
	}
	return vals, nil
}

// Rendered is the output of a client-only install, as `helm template` prints it.
type Rendered struct {
	// Docs are the manifests in install order.
	Docs []string
	// Notes is the rendered NOTES.txt.
	Notes string
}

// Template renders the chart with vals as `helm template RELEASE` does,
// values.schema.json included.
func Template(release, namespace string, vals map[string]any) (Rendered, error) {
	chrt, err := loader.Load(ChartDir)
	if err != nil {
		return Rendered{}, fmt.Errorf("load chart: %w", err)
	}
	cfg := &action.Configuration{Log: func(string, ...any) {}}
	install := action.NewInstall(cfg)
	install.DryRun = true
	install.DryRunOption = "client"
	install.ClientOnly = true
	install.Replace = true
	install.IncludeCRDs = true
	install.ReleaseName = release
	install.Namespace = namespace
	install.KubeVersion = &KubeVersion
	rel, err := install.Run(chrt, vals)
	if err != nil {
		return Rendered{}, err
	}
	split := releaseutil.SplitManifests(rel.Manifest)
	keys := slices.Sorted(maps.Keys(split))
	slices.SortFunc(keys, func(a, b string) int { return manifestIndex(a) - manifestIndex(b) })
	out := Rendered{Notes: rel.Info.Notes}
	for _, k := range keys {
		out.Docs = append(out.Docs, split[k])
	}
	return out, nil
}

// manifestIndex reads N from SplitManifests' "manifest-N" keys.
func manifestIndex(key string) int {
	var n int
	if _, err := fmt.Sscanf(key, "manifest-%d", &n); err != nil {
		return -1
	}
	return n
}

// Lint runs `helm lint` on the chart with vals and returns its errors and
// every message at warning level or above.
func Lint(vals map[string]any) []string {
	lint := action.NewLint()
	lint.Strict = true
	lint.KubeVersion = &KubeVersion
	res := lint.Run([]string{ChartDir}, vals)
	var problems []string
	for _, e := range res.Errors {
		problems = append(problems, e.Error())
	}
	for _, m := range res.Messages {
		if m.Severity >= support.WarningSev {
			problems = append(problems, m.Error())
		}
	}
	if res.TotalChartsLinted != 1 {
		problems = append(problems, fmt.Sprintf("linted %d charts, want 1", res.TotalChartsLinted))
	}
	return problems
}
