package chartest

import (
	"bytes"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Objects are the rendered manifests, each decoded strictly into its type.
type Objects struct {
	Deployments          []*appsv1.Deployment
	ConfigMaps           []*corev1.ConfigMap
	Services             []*corev1.Service
	ServiceAccounts      []*corev1.ServiceAccount
	PodDisruptionBudgets []*policyv1.PodDisruptionBudget
	ScaledObjects        []*ScaledObject
	TriggerAuths         []*TriggerAuthentication
	ServiceMonitors      []*ServiceMonitor
}

// Decode decodes every document strictly: an unknown or misspelt field, a
// duplicate field, a value of the wrong type or a kind the chart should not
// render is an error naming the document.
func Decode(docs []string) (Objects, error) {
	var o Objects
	for i, doc := range docs {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			return o, fmt.Errorf("document %d: %w", i, err)
		}
		var target any
		switch tm.APIVersion + "/" + tm.Kind {
		case "apps/v1/Deployment":
			target = add(&o.Deployments)
		case "v1/ConfigMap":
			target = add(&o.ConfigMaps)
		case "v1/Service":
			target = add(&o.Services)
		case "v1/ServiceAccount":
			target = add(&o.ServiceAccounts)
		case "policy/v1/PodDisruptionBudget":
			target = add(&o.PodDisruptionBudgets)
		case "keda.sh/v1alpha1/ScaledObject":
			target = add(&o.ScaledObjects)
		case "keda.sh/v1alpha1/TriggerAuthentication":
			target = add(&o.TriggerAuths)
		case "monitoring.coreos.com/v1/ServiceMonitor":
			target = add(&o.ServiceMonitors)
		default:
			return o, fmt.Errorf("document %d: unexpected kind %s %s:\n%s", i, tm.APIVersion, tm.Kind, doc)
		}
		if err := strictJSON(doc, target); err != nil {
			return o, fmt.Errorf("document %d (%s): %w\n%s", i, tm.Kind, err, doc)
		}
	}
	return o, nil
}

// strictJSON decodes a YAML document as the API server receives it: turned
// into JSON without knowledge of the target type (so a number stays a
// number), duplicate keys rejected, then decoded with unknown fields
// rejected.
func strictJSON(doc string, target any) error {
	j, err := yaml.YAMLToJSONStrict([]byte(doc))
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	return dec.Decode(target)
}

// add appends a new zero object to list and returns it.
func add[T any](list *[]*T) *T {
	v := new(T)
	*list = append(*list, v)
	return v
}

// ScaledObject is the part of KEDA's keda.sh/v1alpha1 ScaledObject that the
// chart uses; the fields are KEDA's, so a misspelt one fails to decode.
type ScaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
		} `json:"scaleTargetRef"`
		MinReplicaCount *int32 `json:"minReplicaCount"`
		MaxReplicaCount *int32 `json:"maxReplicaCount"`
		PollingInterval *int32 `json:"pollingInterval"`
		CooldownPeriod  *int32 `json:"cooldownPeriod"`
		Triggers        []struct {
			Type string `json:"type"`
			// Metadata values are strings in KEDA's API: a bare number fails.
			Metadata          map[string]string `json:"metadata"`
			AuthenticationRef *struct {
				Name string `json:"name"`
			} `json:"authenticationRef"`
		} `json:"triggers"`
	} `json:"spec"`
}

// TriggerAuthentication is the part of KEDA's TriggerAuthentication the
// chart uses.
type TriggerAuthentication struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		SecretTargetRef []struct {
			Parameter string `json:"parameter"`
			Name      string `json:"name"`
			Key       string `json:"key"`
		} `json:"secretTargetRef"`
	} `json:"spec"`
}

// ServiceMonitor is the part of the Prometheus Operator's
// monitoring.coreos.com/v1 ServiceMonitor the chart uses.
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector          metav1.LabelSelector `json:"selector"`
		NamespaceSelector struct {
			MatchNames []string `json:"matchNames"`
		} `json:"namespaceSelector"`
		Endpoints []struct {
			Port          string `json:"port"`
			Path          string `json:"path"`
			Interval      string `json:"interval"`
			ScrapeTimeout string `json:"scrapeTimeout"`
		} `json:"endpoints"`
	} `json:"spec"`
}
