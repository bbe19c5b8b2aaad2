package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// defaults is a configuration's sections, as config.Default writes them.
func defaults() (Images, Pruning) {
	return Images{MaxDimensionPx: 1200, MaxBytes: 5 << 20, MaxInputPixels: 25_000_000, MaxBase64Bytes: 64 << 20,
			MaxFrames: 64},
		Pruning{Mode: PruningOff, TTL: Duration(5 * time.Minute), KeepLastAssistants: 3, SoftTrimRatio: 0.3,
			HardClearRatio: 0.5, MinPrunableToolChars: 50_000, SoftTrim: SoftTrim{MaxChars: 4000, HeadChars: 1500, TailChars: 1500},
			HardClear: HardClear{Enabled: true, Placeholder: "[Old tool result content cleared]"},
			Tools:     Tools{Allow: []string{}, Deny: []string{"read"}}}
}

func job[T any](t *testing.T, raw string) Overlay[T] {
	t.Helper()
	o, err := DecodeOption[T]([]byte(raw), "options.section")
	if err != nil {
		t.Fatalf("DecodeOption(%s): %v", raw, err)
	}
	return o
}

func TestResolvePruning(t *testing.T) {
	_, def := defaults()
	with := func(f func(*Pruning)) Pruning { p := def; f(&p); return p }
	tests := []struct {
		name   string
		tenant string // YAML
		job    string // JSON
		want   Pruning
	}{
		{"defaults only", "", "", def},
		{"tenant overrides", "{mode: cache-ttl, ttl: 10m, soft_trim: {head_chars: 100}}", "", with(func(p *Pruning) {
			p.Mode, p.TTL, p.SoftTrim.HeadChars = PruningCacheTTL, Duration(10*time.Minute), 100
		})},
		{"job overrides tenant", "{mode: cache-ttl, ttl: 10m, keep_last_assistants: 1}", `{"ttl_ms":60000,"last_cache_touch_ms":2,"soft_trim":{"tail_chars":7}}`,
			with(func(p *Pruning) {
				p.Mode, p.TTL, p.KeepLastAssistants, p.LastCacheTouchMs, p.SoftTrim.TailChars = PruningCacheTTL, Duration(time.Minute), 1, 2, 7
			})},
		{"job null values set nothing", "{mode: cache-ttl}", `{"mode":null,"ttl_ms":null,"soft_trim":null}`, with(func(p *Pruning) { p.Mode = PruningCacheTTL })},
		{"a list set replaces that list and keeps the other", "{tools: {allow: [exec*]}}", `{"tools":{"deny":["bash"]}}`,
			with(func(p *Pruning) { p.Tools = Tools{Allow: []string{"exec*"}, Deny: []string{"bash"}} })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var tenant, j Overlay[Pruning]
			if tc.tenant != "" {
				tenant = OverlayOf[Pruning](tc.tenant)
			}
			if tc.job != "" {
				j = job[Pruning](t, tc.job)
			}
			if got := Resolve(def, tenant, j); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Resolve = %+v\nwant      %+v", got, tc.want)
			}
		})
	}
}

// ttl in YAML (a duration) and ttl_ms in a job (milliseconds) are one field.
func TestTTLAndTTLMsAreOneSetting(t *testing.T) {
	_, def := defaults()
	fromYAML := Resolve(def, OverlayOf[Pruning]("ttl: 90s"), Overlay[Pruning]{})
	fromJSON := Resolve(def, Overlay[Pruning]{}, job[Pruning](t, `{"ttl_ms":90000}`))
	if fromYAML.TTL != fromJSON.TTL || fromYAML.TTL.Milliseconds() != 90_000 {
		t.Fatalf("ttl: 90s gives %s, ttl_ms: 90000 gives %s", fromYAML.TTL, fromJSON.TTL)
	}
	huge := Resolve(def, Overlay[Pruning]{}, job[Pruning](t, `{"ttl_ms":9000000000000000000}`))
	if huge.TTL.Milliseconds() <= 0 {
		t.Fatalf("a huge ttl_ms wrapped to %s; it must stay the longest TTL", huge.TTL)
	}
}

func TestImageAliases(t *testing.T) {
	def, _ := defaults()
	o := job[Images](t, `{"many_images_threshold":5}`)
	if err := o.AddAlias(ImageAliases["image_max_dimension_px"], "options.image_max_dimension_px", []byte("800")); err != nil {
		t.Fatal(err)
	}
	got := Resolve(def, Overlay[Images]{}, o)
	if got.MaxDimensionPx != 800 || got.ManyImagesThreshold != 5 || got.MaxBytes != def.MaxBytes {
		t.Fatalf("images %+v", got)
	}
	// The alias is named as the job sent it.
	bad := job[Images](t, `{}`)
	if err := bad.AddAlias("max_bytes", "options.image_max_bytes", []byte("0")); err != nil {
		t.Fatal(err)
	}
	if p := Validate(Resolve(def, Overlay[Images]{}, bad), FromJob(bad)); !slices.Equal(p, []string{"options.image_max_bytes: must be at least 1, got 0"}) {
		t.Fatalf("problems %q", p)
	}
	// Both spellings of one setting: refused.
	if err := o.AddAlias("max_dimension_px", "options.image_max_dimension_px", []byte("700")); err == nil ||
		!strings.Contains(err.Error(), "set twice") {
		t.Fatalf("a setting sent twice: %v", err)
	}
}

// A job may not set what protects the worker, nor a key no field has; the
// error names the option.
func TestDecodeOptionRefuses(t *testing.T) {
	tests := []struct{ raw, want string }{
		{`{"max_frames":1000}`, "options.section.max_frames: a worker setting, which a job cannot set"},
		{`{"max_input_pixels":1}`, "options.section.max_input_pixels: a worker setting, which a job cannot set"},
		{`{"workers":8}`, "options.section.workers: unknown option"}, // the pool is images.Config's, no setting of a job
		{`{"max_dimension":1}`, "options.section.max_dimension: unknown option"},
		{`{"MAX_BYTES":1}`, "options.section.MAX_BYTES: unknown option"},
		{`{"max_bytes":"big"}`, `options.section.max_bytes: must be an integer, got "big"`},
		{`[]`, "options.section: must be an object"},
		{`{"max_bytes":"` + strings.Repeat("x", 100) + `"}`, `options.section.max_bytes: must be an integer, got "` + strings.Repeat("x", 63) + "..."},
	}
	for _, tc := range tests {
		_, err := DecodeOption[Images]([]byte(tc.raw), "options.section")
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeOption(%s) = %v, want %q", tc.raw, err, tc.want)
		}
	}
	for raw, want := range map[string]string{
		`{"ttl":300000}`:               "options.section.ttl: unknown option",
		`{"ttl_ms":1.5}`:               "options.section.ttl_ms: must be an integer number of milliseconds, got 1.5",
		`{"soft_trim":{"max":1}}`:      "options.section.soft_trim.max: unknown option",
		`{"tools":{"allow":"x*"}}`:     `options.section.tools.allow: must be a list of strings, got "x*"`,
		`{"hard_clear":{"enabled":1}}`: "options.section.hard_clear.enabled: must be a boolean (true or false), got 1",
	} {
		_, err := DecodeOption[Pruning]([]byte(raw), "options.section")
		if err == nil || err.Error() != want {
			t.Errorf("DecodeOption(%s) = %v, want %q", raw, err, want)
		}
	}
}

// Validate names each bad value by the layer that set it: the config key,
// the tenant's key, or the job option.
func TestValidateNamesTheSource(t *testing.T) {
	defImages, def := defaults()
	bad := def
	bad.SoftTrimRatio, bad.Tools.Deny = 3, []string{"ok", " "}
	if got, want := Validate(bad, FromConfig[Pruning]("pruning")), []string{
		"pruning.soft_trim_ratio: must be between 0 and 1, got 3",
		"pruning.tools.deny[1]: must not be empty",
	}; !slices.Equal(got, want) {
		t.Errorf("config: %q, want %q", got, want)
	}

	tenant := OverlayOf[Pruning]("{soft_trim_ratio: 2, ttl: -1s}")
	resolved := Resolve(bad, tenant, Overlay[Pruning]{}) // deny[1] is inherited: reported under the config's key
	if got, want := Validate(resolved, FromTenant("pruning", "acme", tenant)), []string{
		"tenants.acme.pruning.ttl: must not be negative, got -1s",
		"tenants.acme.pruning.soft_trim_ratio: must be between 0 and 1, got 2",
	}; !slices.Equal(got, want) {
		t.Errorf("tenant: %q, want %q", got, want)
	}

	o2, err := DecodeOption[Pruning]([]byte(`{"mode":"always","ttl_ms":-5,"keep_last_assistants":-1,"tools":{"allow":[""]}}`), "options.pruning")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Validate(Resolve(def, Overlay[Pruning]{}, o2), FromJob(o2)), []string{
		`options.pruning.mode: must be one of "off", "cache-ttl", got "always"`,
		"options.pruning.ttl_ms: must not be negative, got -5ms",
		"options.pruning.keep_last_assistants: must be at least 0, got -1",
		"options.pruning.tools.allow[0]: must not be empty",
	}; !slices.Equal(got, want) {
		t.Errorf("job: %q, want %q", got, want)
	}

	img, err := DecodeOption[Images]([]byte(`{"max_dimension_px":0}`), "options.images")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := Validate(Resolve(defImages, Overlay[Images]{}, img), FromJob(img)), []string{
		"options.images.max_dimension_px: must be at least 1, got 0",
	}; !slices.Equal(got, want) {
		t.Errorf("job images: %q, want %q", got, want)
	}
	if got := Validate(defImages, FromConfig[Images]("images")); got != nil {
		t.Errorf("the defaults are bad: %q", got)
	}
}

// Resolve never writes into a lower layer's list: the tenant's and the
// job's lists are new slices, whatever capacity the one below had.
func TestResolveSharesNoWrittenList(t *testing.T) {
	_, def := defaults()
	def.Tools.Deny = make([]string, 1, 8)
	def.Tools.Deny[0] = "read"
	tenant := OverlayOf[Pruning]("tools: {deny: [bash, exec]}")
	below := Resolve(def, tenant, Overlay[Pruning]{})
	got := Resolve(below, Overlay[Pruning]{}, job[Pruning](t, `{"tools":{"deny":["a","b","c"]}}`))
	if full := def.Tools.Deny[:3]; full[0] != "read" || full[1] != "" || full[2] != "" {
		t.Fatalf("the config's list was written: %q", full)
	}
	if !slices.Equal(below.Tools.Deny, []string{"bash", "exec"}) || !slices.Equal(got.Tools.Deny, []string{"a", "b", "c"}) {
		t.Fatalf("tenant %q, job %q", below.Tools.Deny, got.Tools.Deny)
	}
}

// FuzzDecodeOption: any options text either is refused with an error naming
// an option, or decodes to an overlay that resolves without a panic, whose
// every key is a settable field, and which decodes the same way twice.
func FuzzDecodeOption(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"mode":"cache-ttl","ttl_ms":300000,"last_cache_touch_ms":1}`,
		`{"soft_trim":{"max_chars":1},"hard_clear":{"enabled":false,"placeholder":"x"},"tools":{"allow":["a*"],"deny":[]}}`,
		`{"ttl_ms":-9223372036854775808}`, `{"tools":null}`, `{"soft_trim":[]}`, `{"mode":1}`, `[1]`, `"x"`} {
		f.Add([]byte(s))
	}
	_, def := defaults()
	f.Fuzz(func(t *testing.T, raw []byte) {
		o, err := DecodeOption[Pruning](raw, "options.pruning")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "options.pruning") {
				t.Fatalf("error names no option: %v", err)
			}
			return
		}
		for _, k := range o.keys {
			if !strings.HasPrefix(k.name, "options.pruning.") {
				t.Fatalf("key %q is named %q", k.path, k.name)
			}
		}
		again, err := DecodeOption[Pruning](raw, "options.pruning")
		if err != nil || !reflect.DeepEqual(o, again) {
			t.Fatalf("decodes differently twice: %v", err)
		}
		got := Resolve(def, Overlay[Pruning]{}, o)
		_ = Validate(got, FromJob(o))
		if !o.Set() && !reflect.DeepEqual(got, def) {
			t.Fatalf("an empty overlay changed the section: %+v", got)
		}
	})
}

// TestRequestAccessors: an option the job did not send reads as its
// documented default.
func TestRequestAccessors(t *testing.T) {
	for _, c := range []struct {
		name    string
		r       Request
		window  int
		now     int64
		hasNow  bool
		noTools bool
	}{
		{name: "nothing sent", r: Request{}},
		{name: "all sent", r: Request{ContextWindowTokens: new(1000), NowMs: new(int64(5)), ToolsOffered: new(false)}, window: 1000, now: 5, hasNow: true, noTools: true},
		{name: "clock zero is a clock", r: Request{NowMs: new(int64(0))}, hasNow: true},
		{name: "tools offered", r: Request{ToolsOffered: new(true)}},
	} {
		now, ok := c.r.Now()
		if got := c.r.ContextWindow(); got != c.window || now != c.now || ok != c.hasNow || c.r.NoToolsOffered() != c.noTools {
			t.Errorf("%s: window %d, now %d %v, no tools %v; want %d, %d %v, %v", c.name, got, now, ok, c.r.NoToolsOffered(), c.window, c.now, c.hasNow, c.noTools)
		}
	}
}

// TestDecodeOptions: a job's settings members decode onto the overlays and
// the request, and a bad one is refused naming the option as the job spelt
// it, whatever the order of the keys.
func TestDecodeOptions(t *testing.T) {
	o, err := DecodeOptions([]byte(`{"image_max_bytes":7,"now_ms":5,"pruning":{"ttl_ms":60000},"tools_offered":false,"images":{"max_dimension_px":640}}`))
	if err != nil {
		t.Fatal(err)
	}
	img, pr := defaults()
	img, pr = Resolve(img, Overlay[Images]{}, o.Images), Resolve(pr, Overlay[Pruning]{}, o.Pruning)
	if img.MaxBytes != 7 || img.MaxDimensionPx != 640 || time.Duration(pr.TTL) != time.Minute {
		t.Fatalf("images %+v pruning %+v", img, pr)
	}
	if now, ok := o.Now(); !ok || now != 5 || !o.NoToolsOffered() {
		t.Fatalf("request %+v", o.Request)
	}
	for _, raw := range []string{"", "null", "{}"} {
		if o, err := DecodeOptions([]byte(raw)); err != nil || o.Images.Set() || o.Pruning.Set() || !reflect.DeepEqual(o.Request, Request{}) {
			t.Errorf("DecodeOptions(%q) = %+v, %v; want nothing set", raw, o, err)
		}
	}
	for raw, want := range map[string]string{
		`{"now":1}`:                                      `options: unknown field "now"`,
		`{"NOW_MS":1}`:                                   `options: unknown field "NOW_MS"`,
		`{"now_ms":"x","now":1}`:                         `options.now_ms: must be an integer, got "x"`,
		`{"now":1,"now_ms":"x"}`:                         `options: unknown field "now"`,
		`{"images":{},"tools_offered":1,"now":1}`:        "options.tools_offered: must be a boolean (true or false), got 1",
		`{"now_ms":"soon"}`:                              `options.now_ms: must be an integer, got "soon"`,
		`{"tools_offered":1,"now_ms":"x"}`:               "options.tools_offered: must be a boolean (true or false), got 1",
		`{"allowed_tool_names":"read"}`:                  `options.allowed_tool_names: must be a list of strings, got "read"`,
		`{"context_window_tokens":1.5}`:                  "options.context_window_tokens: must be an integer, got 1.5",
		`{"image_max_bytes":2,"images":{"max_bytes":1}}`: "options.image_max_bytes: set twice (also as options.images.max_bytes)",
		`{"images":{"max_bytes":1},"image_max_bytes":2}`: "options.image_max_bytes: set twice (also as options.images.max_bytes)",
		`{"image_max_dimension_px":"big"}`:               `options.image_max_dimension_px: must be an integer, got "big"`,
		`{"pruning":{"ttl":5}}`:                          "options.pruning.ttl: unknown option",
		`{"images":{"max_frames":2}}`:                    "options.images.max_frames: a worker setting, which a job cannot set",
		`{"context_window_tokens":0}`:                    "options.context_window_tokens: must be at least 1, got 0",
		`[1]`:                                            "options: must be an object",
	} {
		_, err := DecodeOptions([]byte(raw))
		if fe, ok := errors.AsType[*FieldError](err); !ok || fe.Error() != want {
			t.Errorf("DecodeOptions(%s) = %v, want %q", raw, err, want)
		}
	}
}

// FuzzDecodeOptions: objectMembers splits any JSON object into the members
// encoding/json reads, in order; other text is refused, never a panic.
func FuzzDecodeOptions(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b\"c":[1,{"x":"]}"}], "d": "e\\"} `, `{"now_ms":5,"images":{"max_bytes":1}}`, `[1]`, `{"a":}`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		members, err := objectMembers(nil, raw)
		var want map[string]json.RawMessage
		if json.Unmarshal(raw, &want) != nil || want == nil {
			if err == nil {
				t.Fatalf("objectMembers(%q) accepted what is no object", raw)
			}
			return
		}
		if err != nil {
			t.Fatalf("objectMembers(%q): %v", raw, err)
		}
		got := map[string]json.RawMessage{}
		for _, m := range members {
			got[m.key] = m.value
		}
		if len(got) != len(want) {
			t.Fatalf("objectMembers(%q) = %d keys, want %d", raw, len(got), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(got[k]), bytes.TrimSpace(v)) {
				t.Fatalf("objectMembers(%q)[%q] = %q, want %q", raw, k, got[k], v)
			}
		}
		_, _ = DecodeOptions(raw) // must not panic
	})
}

// TestContextOptions: a job sets the context section as options.context or
// by its aliases context_fit and max_output_tokens (not both ways); a
// tenant's overlay lies under the job's; Validate names a bad value by the
// option the job spelt.
func TestContextOptions(t *testing.T) {
	def := Context{Fit: FitTrim}
	o, err := DecodeOptions([]byte(`{"context_fit":"refuse","max_output_tokens":64000,"context_window_tokens":200000}`))
	if err != nil {
		t.Fatal(err)
	}
	tenant := OverlayOf[Context]("window_tokens: 128000\nfit: report\n")
	got := Resolve(def, tenant, o.Context)
	if got != (Context{Fit: FitRefuse, WindowTokens: 128000, MaxOutputTokens: 64000}) || o.Request.ContextWindow() != 200000 {
		t.Fatalf("got %+v, window %d", got, o.Request.ContextWindow())
	}
	o, err = DecodeOptions([]byte(`{"context":{"fit":"report","window_tokens":100000}}`))
	if err != nil || Resolve(def, Overlay[Context]{}, o.Context) != (Context{Fit: FitReport, WindowTokens: 100000}) {
		t.Fatalf("options.context: %+v %v", o.Context, err)
	}
	for raw, want := range map[string]string{
		`{"context_fit":"trim","context":{"fit":"report"}}`: "options.context_fit: set twice (also as options.context.fit)",
		`{"max_output_tokens":"lots"}`:                      "options.max_output_tokens: must be an integer, got \"lots\"",
		`{"context":{"reserve":1}}`:                         "options.context.reserve: unknown option",
	} {
		if _, err := DecodeOptions([]byte(raw)); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", raw, err, want)
		}
	}
	o, _ = DecodeOptions([]byte(`{"context_fit":"shrink","max_output_tokens":-1}`))
	p := Validate(Resolve(def, Overlay[Context]{}, o.Context), FromJob(o.Context))
	if !slices.Equal(p, []string{`options.context_fit: must be one of "trim", "refuse", "report", got "shrink"`,
		"options.max_output_tokens: must be at least 0, got -1"}) {
		t.Fatalf("validate: %q", p)
	}
}
