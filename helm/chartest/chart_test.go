package chartest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/hygiene-dev/hygiene/internal/config"
	"github.com/hygiene-dev/hygiene/internal/memlimit"
	"github.com/hygiene-dev/hygiene/internal/settings"
	"github.com/hygiene-dev/hygiene/internal/transport/kafka"
)

// scenario is one set of values the chart must lint, render and decode.
type scenario struct {
	name  string
	file  string
	sets  []string
	check func(t *testing.T, o Objects, cfg config.Config, notes string)
}

var scenarios = []scenario{
	{name: "default values", check: checkDefault},
	{name: "every feature on", file: AllFeaturesValues, check: checkAllFeatures},
	{name: "tls without client certificate, sasl plain, keda ceiling set", file: AllFeaturesValues,
		sets: []string{"kafka.tls.certKey=", "kafka.tls.keyKey=", "kafka.sasl.mechanism=plain", "autoscaling.keda.maxReplicaCount=6"},
		check: func(t *testing.T, o Objects, cfg config.Config, _ string) {
			if cfg.Kafka.TLS.CertFile != "" || cfg.Kafka.TLS.KeyFile != "" || cfg.Kafka.TLS.CAFile == "" {
				t.Errorf("tls = %+v, want a CA and no client certificate", cfg.Kafka.TLS)
			}
			if got := *o.ScaledObjects[0].Spec.MaxReplicaCount; got != 6 {
				t.Errorf("maxReplicaCount = %d, want 6", got)
			}
			if got := o.ScaledObjects[0].Spec.Triggers[0].Metadata["sasl"]; got != "plaintext" {
				t.Errorf("KEDA sasl = %q, want plaintext", got)
			}
		}},
	{name: "endpoint exposed without keys, on purpose, plain HTTP", sets: []string{"http.port=8080", "http.auth.required=false"},
		check: func(t *testing.T, o Objects, cfg config.Config, _ string) {
			if cfg.HTTP.Auth.Enabled() || cfg.HTTP.TLS.CertFile != "" {
				t.Errorf("http = %+v, want no keys and no TLS", cfg.HTTP)
			}
			for _, v := range o.Deployments[0].Spec.Template.Spec.Volumes {
				if v.Name == "http-tls" || v.Name == "http-auth" {
					t.Errorf("volume %s rendered without its Secret", v.Name)
				}
			}
		}},
}

func TestLint(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			vals, err := Values(sc.file, sc.sets...)
			if err != nil {
				t.Fatal(err)
			}
			if problems := Lint(vals); len(problems) > 0 {
				t.Fatalf("helm lint:\n%s", strings.Join(problems, "\n"))
			}
		})
	}
}

// Each scenario renders, every manifest decodes strictly into its API type,
// and the ConfigMap's worker.yaml passes the worker's own strict loader
// with the Deployment's environment applied.
func TestTemplate(t *testing.T) {
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			vals, err := Values(sc.file, sc.sets...)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Template("hyg", "workers", vals)
			if err != nil {
				t.Fatalf("helm template: %v", err)
			}
			o, err := Decode(r.Docs)
			if err != nil {
				t.Fatal(err)
			}
			cfg := loadRenderedConfig(t, o)
			checkCommon(t, o, cfg)
			sc.check(t, o, cfg, r.Notes)
		})
	}
}

// loadRenderedConfig loads the ConfigMap's worker.yaml with config.Load and
// the environment the Deployment gives the container (Secret values stand
// in as placeholders).
func loadRenderedConfig(t *testing.T, o Objects) config.Config {
	t.Helper()
	if len(o.Deployments) != 1 {
		t.Fatalf("rendered %d Deployments, want 1", len(o.Deployments))
	}
	data := workerYAML(t, o)
	path := filepath.Join(t.TempDir(), "worker.yaml")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	var environ []string
	c := o.Deployments[0].Spec.Template.Spec.Containers[0]
	for _, e := range c.Env {
		v := e.Value
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			v = "from-secret-" + e.ValueFrom.SecretKeyRef.Key
		}
		if ref := e.ValueFrom; ref != nil && ref.ResourceFieldRef != nil {
			v = resourceField(t, c, ref.ResourceFieldRef)
		}
		environ = append(environ, e.Name+"="+v)
	}
	cfg, err := config.Load(path, environ)
	if err != nil {
		t.Fatalf("rendered worker.yaml does not load: %v\n%s", err, data)
	}
	return cfg
}

// resourceField is what the kubelet puts in an env var from a
// resourceFieldRef of container c: limits.memory in units of the divisor.
func resourceField(t *testing.T, c corev1.Container, ref *corev1.ResourceFieldSelector) string {
	t.Helper()
	if ref.Resource != "limits.memory" || ref.ContainerName != c.Name || ref.Divisor.Value() != 1 {
		t.Fatalf("resourceFieldRef %+v: want limits.memory of container %s in bytes", ref, c.Name)
	}
	limit, ok := c.Resources.Limits[corev1.ResourceMemory]
	if !ok {
		t.Fatal("the container has no memory limit to pass to the worker")
	}
	return strconv.FormatInt(limit.Value(), 10)
}

// checkCommon holds for every scenario: the container's contract with the
// worker and the cluster.
func checkCommon(t *testing.T, o Objects, cfg config.Config) {
	t.Helper()
	d := o.Deployments[0]
	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	c := pod.Containers[0]
	if want := []string{"run", "--config", "/etc/hygiene/worker.yaml"}; !slices.Equal(c.Args, want) {
		t.Errorf("args = %v, want %v", c.Args, want)
	}
	grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
	if grace <= cfg.Pipeline.ShutdownTimeout {
		t.Errorf("terminationGracePeriodSeconds %s is not above pipeline.shutdown_timeout %s", grace, cfg.Pipeline.ShutdownTimeout)
	}
	if limit := c.Resources.Limits[corev1.ResourceMemory]; cfg.Memory.ContainerLimitBytes != limit.Value() {
		t.Errorf("memory.container_limit_bytes = %d, want the container limit %d", cfg.Memory.ContainerLimitBytes, limit.Value())
	}
	if _, err := memlimit.Make(memlimit.Settings{ContainerLimitBytes: cfg.Memory.ContainerLimitBytes, LimitBytes: cfg.Memory.LimitBytes,
		Ratio: cfg.Memory.LimitRatio, DecodeBytes: cfg.Images.MaxDecodedBytes, CacheBytes: cfg.Images.CacheBytes,
		InflightBytes: cfg.Pipeline.MaxInflightBytes}, t.TempDir()); err != nil {
		t.Errorf("the worker would refuse the rendered configuration: %v", err)
	}
	if got := envValue(c.Env, "MALLOC_ARENA_MAX"); got != "2" {
		t.Errorf("MALLOC_ARENA_MAX = %q, want 2", got)
	}
	if len(c.Ports) == 0 || c.Ports[0].Name != "metrics" {
		t.Fatalf("ports = %+v, want the first named metrics", c.Ports)
	}
	port := c.Ports[0].ContainerPort
	if want := "0.0.0.0:" + strconv.Itoa(int(port)); cfg.Metrics.Listen != want {
		t.Errorf("metrics.listen = %q, want %q (the container port)", cfg.Metrics.Listen, want)
	}
	probe := func(name string, p *corev1.Probe, path string) {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "metrics" {
			t.Errorf("%s probe = %+v, want GET %s on the metrics port", name, p, path)
		}
	}
	probe("liveness", c.LivenessProbe, "/healthz")
	probe("readiness", c.ReadinessProbe, "/readyz")
	psc, sc := pod.SecurityContext, c.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
		t.Errorf("pod security context %+v does not run as a non-root user", psc)
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("container security context %+v: want read-only root, no privilege escalation, ALL capabilities dropped", sc)
	}
	if !hasMount(c.VolumeMounts, "/tmp") {
		t.Errorf("no writable /tmp mounted beside the read-only root filesystem")
	}
	mem := c.Resources.Limits[corev1.ResourceMemory]
	if mem.IsZero() || mem.Cmp(c.Resources.Requests[corev1.ResourceMemory]) != 0 {
		t.Errorf("memory request %v and limit %v: want a limit equal to the request", c.Resources.Requests.Memory(), mem.String())
	}
	checkHTTP(t, o, c, cfg)
	for _, s := range o.Services {
		if !subset(s.Spec.Selector, d.Spec.Template.Labels) {
			t.Errorf("Service selector %v does not select the pods %v", s.Spec.Selector, d.Spec.Template.Labels)
		}
	}
	for _, p := range o.PodDisruptionBudgets {
		if !subset(p.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
			t.Errorf("PDB selector %v does not select the pods", p.Spec.Selector.MatchLabels)
		}
	}
	if !subset(d.Spec.Selector.MatchLabels, d.Spec.Template.Labels) {
		t.Errorf("Deployment selector %v does not match its pod labels %v", d.Spec.Selector.MatchLabels, d.Spec.Template.Labels)
	}
}

// checkHTTP checks the Services against the endpoints the worker serves:
// one on the metrics port always; one on the http port exactly when the
// rendered worker.yaml sets http.listen, to that container port.
func checkHTTP(t *testing.T, o Objects, c corev1.Container, cfg config.Config) {
	t.Helper()
	targets := map[string]bool{}
	for _, s := range o.Services {
		for _, p := range s.Spec.Ports {
			targets[p.TargetPort.String()] = true
		}
	}
	if !targets["metrics"] {
		t.Errorf("no Service targets the metrics port: %+v", o.Services)
	}
	var httpPort *corev1.ContainerPort
	for i := range c.Ports {
		if c.Ports[i].Name == "http" {
			httpPort = &c.Ports[i]
		}
	}
	if cfg.HTTP.Listen == "" {
		if httpPort != nil || targets["http"] || len(o.Services) != 1 {
			t.Errorf("http.listen is off but the chart renders an http port %+v or Services %+v", httpPort, o.Services)
		}
		return
	}
	if httpPort == nil || cfg.HTTP.Listen != "0.0.0.0:"+strconv.Itoa(int(httpPort.ContainerPort)) {
		t.Fatalf("http.listen = %q, want 0.0.0.0:<the container port named http> (%+v)", cfg.HTTP.Listen, httpPort)
	}
	if !targets["http"] || len(o.Services) != 2 {
		t.Errorf("http.listen is set but no second Service targets the http port: %+v", o.Services)
	}
}

// checkHTTPSecrets: the endpoint's certificate and API keys come from
// their Secrets, mounted read-only where worker.yaml reads them, and keys
// are required.
func checkHTTPSecrets(t *testing.T, pod corev1.PodSpec, cfg config.Config) {
	t.Helper()
	if cfg.HTTP.TLS.CertFile != "/etc/hygiene/http-tls/tls.crt" || cfg.HTTP.TLS.KeyFile != "/etc/hygiene/http-tls/tls.key" {
		t.Errorf("http.tls = %+v, want the files of the mounted TLS Secret", cfg.HTTP.TLS)
	}
	if !cfg.HTTP.Auth.Required || cfg.HTTP.Auth.KeysFile != "/etc/hygiene/http-auth/keys.yaml" {
		t.Errorf("http.auth = %+v, want keys required, from the mounted Secret", cfg.HTTP.Auth)
	}
	secrets := map[string]string{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secrets[v.Name] = v.Secret.SecretName
		}
	}
	mounts := map[string]corev1.VolumeMount{}
	for _, m := range pod.Containers[0].VolumeMounts {
		mounts[m.Name] = m
	}
	for name, want := range map[string]struct{ secret, path string }{
		"http-tls":  {"hygiene-http-tls", "/etc/hygiene/http-tls"},
		"http-auth": {"hygiene-http-keys", "/etc/hygiene/http-auth"},
	} {
		if secrets[name] != want.secret || mounts[name].MountPath != want.path || !mounts[name].ReadOnly {
			t.Errorf("volume %s: Secret %q mounted %+v, want Secret %q read-only at %s", name, secrets[name], mounts[name], want.secret, want.path)
		}
	}
}

func checkDefault(t *testing.T, o Objects, cfg config.Config, notes string) {
	d := o.Deployments[0]
	if cfg.Metrics.Pprof {
		t.Errorf("metrics.pprof is on by default")
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %v, want 2", d.Spec.Replicas)
	}
	if got := *d.Spec.Template.Spec.TerminationGracePeriodSeconds; got != 35 {
		t.Errorf("terminationGracePeriodSeconds = %d, want 35", got)
	}
	if cfg.Pipeline.ShutdownTimeout != 25*time.Second {
		t.Errorf("shutdown_timeout = %s, want 25s", cfg.Pipeline.ShutdownTimeout)
	}
	if len(o.ScaledObjects)+len(o.ServiceMonitors)+len(o.TriggerAuths) != 0 {
		t.Errorf("optional objects rendered with default values")
	}
	if len(o.PodDisruptionBudgets) != 1 || len(o.ConfigMaps) != 1 {
		t.Errorf("%d PodDisruptionBudgets and %d ConfigMaps, want 1 each (no dashboard by default)", len(o.PodDisruptionBudgets), len(o.ConfigMaps))
	}
	if cfg.Kafka.TLS.Enabled || cfg.Kafka.SASL.Mechanism != "" {
		t.Errorf("kafka auth on by default: %+v %+v", cfg.Kafka.TLS, cfg.Kafka.SASL)
	}
	if !slices.Equal(cfg.Kafka.Brokers, []string{"kafka:9092"}) {
		t.Errorf("brokers = %v", cfg.Kafka.Brokers)
	}
	for _, want := range []string{"hyg-hygiene-worker", "worker config print", "/readyz", "Replicas: 2"} {
		if !strings.Contains(notes, want) {
			t.Errorf("NOTES.txt lacks %q:\n%s", want, notes)
		}
	}
}

func checkAllFeatures(t *testing.T, o Objects, cfg config.Config, notes string) {
	d := o.Deployments[0]
	if !cfg.Metrics.Pprof {
		t.Errorf("metrics.pprof: true in the values did not reach worker.yaml")
	}
	if cfg.HTTP.Listen != "0.0.0.0:8080" {
		t.Errorf("http.listen = %q, want 0.0.0.0:8080 from http.port", cfg.HTTP.Listen)
	}
	checkHTTPSecrets(t, d.Spec.Template.Spec, cfg)
	pod := d.Spec.Template.Spec
	c := pod.Containers[0]
	if d.Spec.Replicas != nil {
		t.Errorf("replicas = %d with KEDA on; KEDA must own the count", *d.Spec.Replicas)
	}
	if len(o.ScaledObjects) != 1 {
		t.Fatalf("%d ScaledObjects, want 1", len(o.ScaledObjects))
	}
	so := o.ScaledObjects[0].Spec
	if so.ScaleTargetRef.Kind != "Deployment" || so.ScaleTargetRef.Name != d.Name {
		t.Errorf("ScaledObject targets %+v, want Deployment %s", so.ScaleTargetRef, d.Name)
	}
	if *so.MaxReplicaCount != 24 || *so.MinReplicaCount != 2 {
		t.Errorf("replicas %d..%d, want 2..24 (the partition count)", *so.MinReplicaCount, *so.MaxReplicaCount)
	}
	if len(so.Triggers) != 1 || so.Triggers[0].Type != "kafka" {
		t.Fatalf("triggers = %+v, want one kafka trigger", so.Triggers)
	}
	md := so.Triggers[0].Metadata
	want := map[string]string{
		"bootstrapServers": strings.Join(cfg.Kafka.Brokers, ","), "consumerGroup": cfg.Kafka.GroupID,
		"topic": cfg.Kafka.JobsTopic, "lagThreshold": "500", "allowIdleConsumers": "false",
		"sasl": "scram_sha512", "tls": "enable",
	}
	for k, v := range want {
		if md[k] != v {
			t.Errorf("trigger metadata %s = %q, want %q", k, md[k], v)
		}
	}
	if len(o.TriggerAuths) != 1 || so.Triggers[0].AuthenticationRef == nil || so.Triggers[0].AuthenticationRef.Name != o.TriggerAuths[0].Name {
		t.Fatalf("the kafka trigger does not reference the rendered TriggerAuthentication")
	}
	var params []string
	for _, r := range o.TriggerAuths[0].Spec.SecretTargetRef {
		params = append(params, r.Parameter+"="+r.Name+"/"+r.Key)
	}
	slices.Sort(params)
	if wantParams := []string{"ca=kafka-client-tls/ca.crt", "cert=kafka-client-tls/tls.crt", "key=kafka-client-tls/tls.key",
		"password=kafka-sasl/password", "username=kafka-sasl/username"}; !slices.Equal(params, wantParams) {
		t.Errorf("TriggerAuthentication params %v, want %v", params, wantParams)
	}
	if len(o.ServiceMonitors) != 1 || o.ServiceMonitors[0].Spec.Endpoints[0].Port != "metrics" ||
		o.ServiceMonitors[0].Labels["release"] != "prometheus" {
		t.Errorf("ServiceMonitor %+v: want one scraping the metrics port with the extra label", o.ServiceMonitors)
	}
	if sm := o.ServiceMonitors; len(sm) == 1 && !subset(sm[0].Spec.Selector.MatchLabels, o.Services[0].Labels) {
		t.Errorf("ServiceMonitor selector %v does not select the metrics Service %v", sm[0].Spec.Selector.MatchLabels, o.Services[0].Labels)
	}
	// TLS files come from the Secret mounted where the config points.
	if !cfg.Kafka.TLS.Enabled || cfg.Kafka.TLS.CAFile == "" || cfg.Kafka.TLS.CertFile == "" || cfg.Kafka.TLS.KeyFile == "" {
		t.Errorf("tls = %+v, want CA, certificate and key files", cfg.Kafka.TLS)
	}
	dir := filepath.Dir(cfg.Kafka.TLS.CAFile)
	if !hasMount(c.VolumeMounts, dir) {
		t.Errorf("no volume mounted at %s for the TLS files", dir)
	}
	if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Secret != nil && v.Secret.SecretName == "kafka-client-tls" }) {
		t.Errorf("no volume from Secret kafka-client-tls")
	}
	// SASL credentials come from the Secret through the environment.
	for _, name := range []string{"HYGIENE_KAFKA_SASL_USERNAME", "HYGIENE_KAFKA_SASL_PASSWORD"} {
		e := findEnv(c.Env, name)
		if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "kafka-sasl" {
			t.Errorf("%s is not taken from Secret kafka-sasl: %+v", name, e)
		}
	}
	if cfg.Kafka.SASL.Password != "from-secret-password" || cfg.Kafka.SASL.Mechanism != kafka.SASLScramSHA512 {
		t.Errorf("sasl = %+v, want the password from the Secret", cfg.Kafka.SASL)
	}
	if cfg.Pipeline.MaxInflightBytes != 512<<20 {
		t.Errorf("a large integer did not survive the values round trip: max_inflight_bytes = %d", cfg.Pipeline.MaxInflightBytes)
	}
	if cfg.Images.Workers != 2 {
		t.Errorf("extraEnv HYGIENE_IMAGES_WORKERS did not reach the config: images.workers = %d", cfg.Images.Workers)
	}
	if cfg.Pipeline.ShutdownTimeout != 40*time.Second || *pod.TerminationGracePeriodSeconds != 55 {
		t.Errorf("shutdown %s / grace %d, want 40s / 55", cfg.Pipeline.ShutdownTimeout, *pod.TerminationGracePeriodSeconds)
	}
	acme := cfg.Tenants["acme"]
	images := settings.Resolve(cfg.Images.Images, acme.Images, settings.Overlay[settings.Images]{})
	pruning := settings.Resolve(cfg.Pruning, acme.Pruning, settings.Overlay[settings.Pruning]{})
	if share := cfg.PoolShareFor("acme"); images.MaxDimensionPx != 800 || pruning.Mode != settings.PruningOff || share != 0.25 {
		t.Errorf("tenant acme resolves to %d px, pruning %q, share %v", images.MaxDimensionPx, pruning.Mode, share)
	}
	if !strings.Contains(notes, "KEDA scales 2..24") || !strings.Contains(notes, "ServiceMonitor") {
		t.Errorf("NOTES.txt does not describe KEDA and the ServiceMonitor:\n%s", notes)
	}
}

// Values that must stop a release, each with the reason it gives.
func TestTemplateRejects(t *testing.T) {
	tests := []struct {
		name string
		file string
		sets []string
		want string
	}{
		{"grace period not above shutdown", "", []string{"terminationGracePeriodSeconds=25"}, "terminationGracePeriodSeconds (25) must be larger than shutdownTimeoutSeconds (25)"},
		{"keda above partitions", AllFeaturesValues, []string{"autoscaling.keda.maxReplicaCount=25"}, "autoscaling.keda.maxReplicaCount (25) is above kafka.partitions (24)"},
		{"tls without secret", "", []string{"kafka.tls.enabled=true"}, "kafka.tls.enabled needs kafka.tls.secretName"},
		{"client cert without key", AllFeaturesValues, []string{"kafka.tls.keyKey="}, "kafka.tls.certKey and kafka.tls.keyKey must be set together"},
		{"sasl without secret", "", []string{"kafka.sasl.mechanism=plain"}, "kafka.sasl.mechanism needs kafka.sasl.secretName"},
		{"endpoint exposed without keys", "", []string{"http.port=8080"}, "http.port exposes the sanitize endpoint: set http.auth.secretName"},
		{"schema: unknown value", "", []string{"replicas=3"}, "replicas"},
		{"schema: bad sasl mechanism", "", []string{"kafka.sasl.mechanism=gssapi"}, "mechanism"},
		{"schema: no brokers", "", []string{"kafka.brokers=null"}, "brokers"},
		{"schema: broker without port", "", []string{"kafka.brokers={kafka}"}, "brokers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vals, err := Values(tt.file, tt.sets...)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Template("hyg", "workers", vals)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// A config key the worker does not know renders but fails the worker's
// strict loader: the chart passes config through, the worker refuses it.
func TestUnknownConfigKeyFailsTheWorkerLoader(t *testing.T) {
	vals, err := Values("", "config.images.max_dimension=5")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Template("hyg", "workers", vals)
	if err != nil {
		t.Fatal(err)
	}
	o, err := Decode(r.Docs)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "worker.yaml")
	if err := os.WriteFile(path, []byte(workerYAML(t, o)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(path, nil); err == nil || !strings.Contains(err.Error(), `unknown key "images.max_dimension"`) {
		t.Fatalf("config.Load = %v, want an unknown key error", err)
	}
}

// Strict decoding catches a misspelt field in a manifest.
func TestDecodeRejectsMisspeltField(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"deployment", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  replica: 2\n", "replica"},
		{"container", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  template:\n    spec:\n      containers: [{name: w, imagePullPolice: Always}]\n", "imagePullPolice"},
		{"scaledobject", "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: x}\nspec:\n  maxReplicas: 3\n", "maxReplicas"},
		{"keda metadata number", "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: x}\nspec:\n  triggers: [{type: kafka, metadata: {lagThreshold: 5}}]\n", "lagThreshold"},
		{"hpa", "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: x}\n", "unexpected kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode([]string{tt.doc}); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Decode = %v, want an error naming %q", err, tt.want)
			}
		})
	}
}

// workerYAML returns the worker.yaml of the one ConfigMap that holds it.
func workerYAML(t *testing.T, o Objects) string {
	t.Helper()
	var found []string
	for _, cm := range o.ConfigMaps {
		if data, ok := cm.Data["worker.yaml"]; ok {
			found = append(found, data)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d ConfigMaps hold worker.yaml, want 1", len(found))
	}
	return found[0]
}

func envValue(env []corev1.EnvVar, name string) string {
	if e := findEnv(env, name); e != nil {
		return e.Value
	}
	return ""
}

func findEnv(env []corev1.EnvVar, name string) *corev1.EnvVar {
	for i := range env {
		if env[i].Name == name {
			return &env[i]
		}
	}
	return nil
}

func hasMount(mounts []corev1.VolumeMount, path string) bool {
	return slices.ContainsFunc(mounts, func(m corev1.VolumeMount) bool { return m.MountPath == path })
}

// subset reports whether every label of sel is in labels.
func subset(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}
