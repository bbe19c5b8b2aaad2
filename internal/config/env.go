package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// EnvPrefix starts every environment variable that overrides a setting.
const EnvPrefix = "HYGIENE_"

// setting is one leaf of the configuration: its dotted YAML path, its
// environment variable and the field it sets.
type setting struct {
	Path  string
	Env   string
	Field reflect.Value
}

// leafSettings lists every leaf setting of cfg in file order, each with an
// addressable Field into cfg. The tenants map is one setting, HYGIENE_TENANTS,
// whose value is YAML or JSON text (tenant names are case-sensitive and may
// hold '.' and '-', so they cannot be spelt in a variable name).
func leafSettings(cfg *Config) []setting {
	var out []setting
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		if v.Kind() == reflect.Struct && v.Type() != durationType {
			for i := range v.NumField() {
				f := v.Type().Field(i)
				if isInline(f) { // its keys are the section's own
					walk(v.Field(i), path)
				} else if name := yamlName(f); name != "-" { // "-": job state, not a setting
					walk(v.Field(i), join(path, name))
				}
			}
			return
		}
		env := EnvPrefix + strings.ToUpper(strings.ReplaceAll(path, ".", "_"))
		out = append(out, setting{Path: path, Env: env, Field: v})
	}
	walk(reflect.ValueOf(cfg).Elem(), "")
	return out
}

// EnvNames lists the environment variable of every setting, sorted.
func EnvNames() []string {
	var cfg Config
	var names []string
	for _, s := range leafSettings(&cfg) {
		names = append(names, s.Env)
	}
	sort.Strings(names)
	return names
}

// applyEnv applies every HYGIENE_* variable in environ to cfg. A variable
// that names no setting, or whose value does not parse, is an error that
// names the variable.
func applyEnv(cfg *Config, environ []string) error {
	byEnv := map[string]setting{}
	for _, s := range leafSettings(cfg) {
		byEnv[s.Env] = s
	}
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		s, ok := byEnv[name]
		if !ok {
			return fmt.Errorf("environment variable %s names no setting (settings are %s<SECTION>_<KEY>, e.g. HYGIENE_KAFKA_BROKERS)", name, EnvPrefix)
		}
		if err := setFromString(s.Field, value); err != nil {
			return fmt.Errorf("environment variable %s (%s): %w", name, s.Path, err)
		}
	}
	return nil
}

// setFromString parses an environment value into a setting's field.
func setFromString(f reflect.Value, value string) error {
	bad := func() error { return fmt.Errorf("cannot read %q as %s", value, typeName(f.Type())) }
	switch {
	case isDuration(f.Type()):
		d, err := time.ParseDuration(strings.TrimSpace(value))
		if err != nil {
			return bad()
		}
		f.SetInt(int64(d))
	case f.Kind() == reflect.String:
		f.SetString(value)
	case f.Kind() == reflect.Bool:
		b, err := strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			return bad()
		}
		f.SetBool(b)
	case f.Kind() == reflect.Int || f.Kind() == reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil {
			return bad()
		}
		f.SetInt(n)
	case f.Kind() == reflect.Float64:
		x, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return bad()
		}
		f.SetFloat(x)
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		f.Set(reflect.ValueOf(splitList(value)))
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct:
		// a list of records (http.auth.keys): YAML or JSON text
		list := reflect.New(f.Type())
		dec := yaml.NewDecoder(strings.NewReader(value))
		dec.KnownFields(true)
		if err := dec.Decode(list.Interface()); err != nil {
			return fmt.Errorf("not a YAML or JSON list: %w", err)
		}
		f.Set(list.Elem())
	case f.Kind() == reflect.Map:
		return setTenants(f, value)
	default:
		return fmt.Errorf("settings of type %s cannot be set from the environment", f.Type())
	}
	return nil
}

// splitList splits a comma-separated list, trimming spaces and dropping
// empty items; "" is the empty list.
func splitList(value string) []string {
	out := []string{}
	for item := range strings.SplitSeq(value, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// setTenants replaces the tenants map with the YAML (or JSON) in value,
// checked as strictly as the file.
func setTenants(f reflect.Value, value string) error {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(value), &n); err != nil {
		return fmt.Errorf("not YAML: %w", err)
	}
	tenants := map[string]TenantOverride{}
	if len(n.Content) > 0 {
		if err := checkNode(&n, f.Type(), "tenants"); err != nil {
			return err
		}
		if err := n.Decode(&tenants); err != nil {
			return err
		}
	}
	if tenants == nil {
		tenants = map[string]TenantOverride{}
	}
	f.Set(reflect.ValueOf(tenants))
	return nil
}
