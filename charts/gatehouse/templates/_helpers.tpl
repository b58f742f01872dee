{{/* The chart name, or nameOverride. */}}
{{- define "gatehouse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the resources: fullnameOverride, or the release name (with the chart name unless the release
name contains it). Kept to 50 characters so "-operator-leader-election" suffixes stay valid names.
*/}}
{{- define "gatehouse.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 40 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "gatehouse.operatorName" -}}
{{- printf "%s-operator" (include "gatehouse.fullname" .) }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "gatehouse.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/part-of: gatehouse
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* Labels on an object that carries no selector labels of its own. */}}
{{- define "gatehouse.metaLabels" -}}
{{ include "gatehouse.labels" . }}
app.kubernetes.io/name: {{ include "gatehouse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/* Selector labels of the gateway pods (immutable once installed). */}}
{{- define "gatehouse.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gatehouse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: gateway
{{- end }}

{{/* Selector labels of the operator pods. */}}
{{- define "gatehouse.operatorSelectorLabels" -}}
app.kubernetes.io/name: {{ include "gatehouse.name" . }}-operator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end }}

{{- define "gatehouse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "gatehouse.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "gatehouse.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/* The Secret holding the gateway's AUTH_SECRET and INTERNAL_API_SECRET. */}}
{{- define "gatehouse.secretName" -}}
{{- default (printf "%s-secrets" (include "gatehouse.fullname" .)) .Values.secrets.existingSecret }}
{{- end }}

{{/* The Secret holding the external database URL, and its key. */}}
{{- define "gatehouse.databaseSecretName" -}}
{{- default (printf "%s-database" (include "gatehouse.fullname" .)) .Values.database.external.existingSecret }}
{{- end }}
{{- define "gatehouse.databaseSecretKey" -}}
{{- if .Values.database.external.existingSecret }}{{ .Values.database.external.existingSecretKey }}{{ else }}database-url{{ end }}
{{- end }}

{{/* The pod and container hardening both Deployments share. */}}
{{- define "gatehouse.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 1000
runAsGroup: 1000
fsGroup: 1000
seccompProfile:
  type: RuntimeDefault
{{- end }}
{{- define "gatehouse.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: [ALL]
{{- end }}
