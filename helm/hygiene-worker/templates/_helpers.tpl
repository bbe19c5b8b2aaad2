{{/* Chart name, shortened to the 63 characters a label allows. */}}
{{- define "hygiene-worker.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Fully qualified app name. */}}
{{- define "hygiene-worker.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "hygiene-worker.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "hygiene-worker.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels that select the worker pods. */}}
{{- define "hygiene-worker.selectorLabels" -}}
app.kubernetes.io/name: {{ include "hygiene-worker.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "hygiene-worker.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "hygiene-worker.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* Directory where the Kafka TLS Secret is mounted. */}}
{{- define "hygiene-worker.tlsDir" -}}/etc/hygiene/kafka-tls{{- end }}

{{/* Directories where the sanitize endpoint's TLS and API-key Secrets are mounted. */}}
{{- define "hygiene-worker.httpTLSDir" -}}/etc/hygiene/http-tls{{- end }}
{{- define "hygiene-worker.httpAuthDir" -}}/etc/hygiene/http-auth{{- end }}

{{/* Checks that stop a bad release before it renders. */}}
{{- define "hygiene-worker.checks" -}}
{{- if le (int .Values.terminationGracePeriodSeconds) (int .Values.shutdownTimeoutSeconds) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must be larger than shutdownTimeoutSeconds (%d), or pods are killed mid-drain" (int .Values.terminationGracePeriodSeconds) (int .Values.shutdownTimeoutSeconds)) }}
{{- end }}
{{- if and .Values.kafka.tls.enabled (not .Values.kafka.tls.secretName) }}
{{- fail "kafka.tls.enabled needs kafka.tls.secretName (a Secret with the CA and optional client certificate)" }}
{{- end }}
{{- if ne (empty .Values.kafka.tls.certKey) (empty .Values.kafka.tls.keyKey) }}
{{- fail "kafka.tls.certKey and kafka.tls.keyKey must be set together" }}
{{- end }}
{{- if and .Values.kafka.sasl.mechanism (not .Values.kafka.sasl.secretName) }}
{{- fail "kafka.sasl.mechanism needs kafka.sasl.secretName (a Secret with the user name and password)" }}
{{- end }}
{{- if and .Values.http.port .Values.http.auth.required (not .Values.http.auth.secretName) }}
{{- fail "http.port exposes the sanitize endpoint: set http.auth.secretName (a Secret with the API keys, stored hashed), or http.auth.required=false to take jobs for any tenant from any caller" }}
{{- end }}
{{- if and .Values.autoscaling.keda.enabled (gt (int (include "hygiene-worker.maxReplicas" .)) (int .Values.kafka.partitions)) }}
{{- fail (printf "autoscaling.keda.maxReplicaCount (%s) is above kafka.partitions (%d): the extra consumers would sit idle" (include "hygiene-worker.maxReplicas" .) (int .Values.kafka.partitions)) }}
{{- end }}
{{- end }}

{{/* KEDA's replica ceiling: the partition count unless set. */}}
{{- define "hygiene-worker.maxReplicas" -}}
{{- if kindIs "invalid" .Values.autoscaling.keda.maxReplicaCount }}{{ int .Values.kafka.partitions }}{{ else }}{{ int .Values.autoscaling.keda.maxReplicaCount }}{{ end }}
{{- end }}

{{/*
The worker.yaml of the ConfigMap: .Values.config with the settings the
chart owns written over it.
*/}}
{{- define "hygiene-worker.workerConfig" -}}
{{- $k := .Values.kafka }}
{{- $tls := dict "enabled" $k.tls.enabled "insecure_skip_verify" $k.tls.insecureSkipVerify }}
{{- if $k.tls.enabled }}
{{- $_ := set $tls "ca_file" (printf "%s/%s" (include "hygiene-worker.tlsDir" .) $k.tls.caKey) }}
{{- if $k.tls.certKey }}
{{- $_ := set $tls "cert_file" (printf "%s/%s" (include "hygiene-worker.tlsDir" .) $k.tls.certKey) }}
{{- $_ := set $tls "key_file" (printf "%s/%s" (include "hygiene-worker.tlsDir" .) $k.tls.keyKey) }}
{{- end }}
{{- end }}
{{- $kafka := dict "brokers" $k.brokers "group_id" $k.groupId "jobs_topic" $k.jobsTopic "ready_topic" $k.readyTopic "dlq_topic" $k.dlqTopic "tls" $tls "sasl" (dict "mechanism" $k.sasl.mechanism) }}
{{- $owned := dict "kafka" $kafka "metrics" (dict "listen" (printf "0.0.0.0:%d" (int .Values.metrics.port)) "pprof" .Values.metrics.pprof) "pipeline" (dict "shutdown_timeout" (printf "%ds" (int .Values.shutdownTimeoutSeconds))) }}
{{- if .Values.http.port }}
{{- $http := dict "listen" (printf "0.0.0.0:%d" (int .Values.http.port)) }}
{{- if .Values.http.tls.secretName }}
{{- $_ := set $http "tls" (dict "cert_file" (printf "%s/tls.crt" (include "hygiene-worker.httpTLSDir" .)) "key_file" (printf "%s/tls.key" (include "hygiene-worker.httpTLSDir" .))) }}
{{- end }}
{{- $auth := dict "required" .Values.http.auth.required }}
{{- if .Values.http.auth.secretName }}
{{- $_ := set $auth "keys_file" (printf "%s/%s" (include "hygiene-worker.httpAuthDir" .) .Values.http.auth.key) }}
{{- end }}
{{- $_ := set $http "auth" $auth }}
{{- $_ := set $owned "http" $http }}
{{- end }}
{{- toYaml (mergeOverwrite (deepCopy .Values.config) $owned) }}
{{- end }}
