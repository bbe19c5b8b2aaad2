package config

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hygiene-dev/hygiene/internal/apikeys"
	"github.com/hygiene-dev/hygiene/internal/settings"
)

// Every setting, listed by reflection, is reachable by its own HYGIENE_
// variable, and setting it changes that setting and nothing else.
func TestEveryEnvOverridePath(t *testing.T) {
	var probe Config
	all := leafSettings(&probe)
	if len(all) < 60 {
		t.Fatalf("settings() found %d settings; the reflection walk is broken", len(all))
	}
	for _, s := range all {
		t.Run(s.Env, func(t *testing.T) {
			raw, want := overrideValue(t, s)
			got := Default()
			if err := applyEnv(&got, []string{s.Env + "=" + raw}); err != nil {
				t.Fatalf("%s=%s: %v", s.Env, raw, err)
			}
			expect := Default()
			field := fieldAt(&expect, s.Path)
			field.Set(want)
			if !reflect.DeepEqual(got, expect) {
				t.Fatalf("%s=%s: want only %s changed to %v, got %+v", s.Env, raw, s.Path, want, got)
			}
		})
	}
}

// overrideValue gives, for one setting, an environment value that differs
// from its default and the value it must decode to.
func overrideValue(t *testing.T, s setting) (string, reflect.Value) {
	t.Helper()
	def := fieldAt(new(Default()), s.Path)
	switch {
	case isDuration(s.Field.Type()):
		d := time.Duration(def.Int()) + 3*time.Second
		return d.String(), reflect.ValueOf(d).Convert(s.Field.Type())
	case s.Field.Kind() == reflect.String:
		v := "set-by-" + strings.ToLower(s.Env)
		return v, reflect.ValueOf(v).Convert(s.Field.Type())
	case s.Field.Kind() == reflect.Bool:
		v := !def.Bool()
		return strconv.FormatBool(v), reflect.ValueOf(v)
	case s.Field.Kind() == reflect.Int:
		v := int(def.Int()) + 7
		return strconv.Itoa(v), reflect.ValueOf(v)
	case s.Field.Kind() == reflect.Int64:
		v := def.Int() + 7
		return strconv.FormatInt(v, 10), reflect.ValueOf(v)
	case s.Field.Kind() == reflect.Float64:
		v := def.Float() + 0.125
		return strconv.FormatFloat(v, 'g', -1, 64), reflect.ValueOf(v)
	case s.Field.Kind() == reflect.Slice && s.Field.Type().Elem().Kind() == reflect.Struct:
		hash := apikeys.Hash("hyg_live_3kT9vQ2xPzL8mW4nR7bY1cF6")
		return `[{name: ops, sha256: ` + hash + `, tenants: ["*"]}]`, reflect.ValueOf([]apikeys.Key{{Name: "ops", SHA256: hash, Tenants: []string{"*"}}})
	case s.Field.Kind() == reflect.Slice:
		return " a:1 , b:2,, ", reflect.ValueOf([]string{"a:1", "b:2"})
	case s.Field.Kind() == reflect.Map:
		share := 0.25
		return `{acme.eu-1: {pool_share: 0.25}}`, reflect.ValueOf(map[string]TenantOverride{"acme.eu-1": {PoolShare: &share}})
	}
	t.Fatalf("no override value for %s of type %s", s.Path, s.Field.Type())
	return "", reflect.Value{}
}

// fieldAt finds the setting at a dotted path in cfg.
func fieldAt(cfg *Config, path string) reflect.Value {
	for _, s := range leafSettings(cfg) {
		if s.Path == path {
			return s.Field
		}
	}
	panic("no setting " + path)
}

func TestEnvNamesAreUnique(t *testing.T) {
	names := EnvNames()
	for i := 1; i < len(names); i++ {
		if names[i] == names[i-1] {
			t.Errorf("two settings share the variable %s", names[i])
		}
	}
	for _, want := range []string{"HYGIENE_KAFKA_BROKERS", "HYGIENE_KAFKA_TLS_ENABLED", "HYGIENE_IMAGES_MAX_DIMENSION_PX",
		"HYGIENE_PRUNING_SOFT_TRIM_MAX_CHARS", "HYGIENE_PRUNING_TOOLS_DENY", "HYGIENE_TENANTS"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("EnvNames() lacks %s", want)
		}
	}
}

func TestEnvErrors(t *testing.T) {
	tests := []struct {
		name, env, want string
	}{
		{"unknown variable", "HYGIENE_KAFKA_BROKER=a:1", "environment variable HYGIENE_KAFKA_BROKER names no setting"},
		{"section alone", "HYGIENE_KAFKA=x", "HYGIENE_KAFKA names no setting"},
		{"bad integer", "HYGIENE_IMAGES_MAX_DIMENSION_PX=12px", `HYGIENE_IMAGES_MAX_DIMENSION_PX (images.max_dimension_px): cannot read "12px" as an integer`},
		{"bad duration", "HYGIENE_PIPELINE_SHUTDOWN_TIMEOUT=25", `(pipeline.shutdown_timeout): cannot read "25" as a duration`},
		{"bad bool", "HYGIENE_KAFKA_TLS_ENABLED=yes please", `cannot read "yes please" as a boolean`},
		{"bad float", "HYGIENE_PIPELINE_TENANT_MAX_SHARE=half", `cannot read "half" as a number`},
		{"tenants unknown key", "HYGIENE_TENANTS={acme: {pool_shares: 1}}", `unknown key "tenants.acme.pool_shares"`},
		{"tenants not yaml", "HYGIENE_TENANTS={acme: [", "HYGIENE_TENANTS (tenants): not YAML"},
		{"valid value, invalid config", "HYGIENE_IMAGES_MAX_DIMENSION_PX=0", "images.max_dimension_px: must be at least 1, got 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load("", []string{"PATH=/bin", tt.env})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load with %s: got error %v, want one containing %q", tt.env, err, tt.want)
			}
		})
	}
}

func TestEnvOverridesFileAndIgnoresOtherVariables(t *testing.T) {
	path := writeFile(t, "kafka:\n  brokers: [file:9092]\nimages:\n  max_dimension_px: 800\n")
	cfg, err := Load(path, []string{
		"HOME=/root", "HYGIENEX=1", "hygiene_images_max_bytes=1",
		"HYGIENE_KAFKA_BROKERS=a:9092,b:9092",
		"HYGIENE_PRUNING_TOOLS_DENY=",
		"HYGIENE_TENANTS=",
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a:9092", "b:9092"}; !reflect.DeepEqual(cfg.Kafka.Brokers, want) {
		t.Errorf("brokers = %v, want %v", cfg.Kafka.Brokers, want)
	}
	if cfg.Images.MaxDimensionPx != 800 {
		t.Errorf("max_dimension_px = %d, want the file's 800", cfg.Images.MaxDimensionPx)
	}
	if cfg.Images.MaxBytes != Default().Images.MaxBytes {
		t.Errorf("a lower-case variable changed images.max_bytes to %d", cfg.Images.MaxBytes)
	}
	if cfg.Pruning.Tools.Deny == nil || len(cfg.Pruning.Tools.Deny) != 0 {
		t.Errorf("empty list variable gave %#v, want an empty list", cfg.Pruning.Tools.Deny)
	}
	if cfg.Tenants == nil || len(cfg.Tenants) != 0 {
		t.Errorf("empty HYGIENE_TENANTS gave %#v, want an empty map", cfg.Tenants)
	}
}

// TestContractModeFromEnv: HYGIENE_CONTRACT_MODE reaches contract.mode and
// is validated like the file's value.
func TestContractModeFromEnv(t *testing.T) {
	cfg, err := Load("", []string{"HYGIENE_CONTRACT_MODE=report"})
	if err != nil || cfg.Contract.Mode != settings.ContractReport {
		t.Fatalf("mode %q, err %v", cfg.Contract.Mode, err)
	}
	if _, err := Load("", []string{"HYGIENE_CONTRACT_MODE=ignore"}); err == nil || !strings.Contains(err.Error(), `contract.mode: must be one of "reject", "report", got "ignore"`) {
		t.Fatalf("err %v", err)
	}
}
