import { ROOT_RULES } from './cel-rules.ts';
import type { JsonSchema } from './json-schema.ts';
import {
  CRD_NAME,
  GROUP,
  KIND,
  LIST_KIND,
  MANAGED_BY,
  PLURAL,
  SHORT_NAMES,
  SINGULAR,
  VERSION,
} from './names.ts';
import {
  apiAuthModeSchema,
  apiAuthSchema,
  envVarSchema,
  ldapSchema,
  oidcSchema,
  prometheusQueriesSchema,
  prometheusSchema,
  rolloutPolicySchema,
  secretEnvVarSchema,
  secretKeyRefSchema,
  specSchema,
  targetSchema,
  webauthnSchema,
} from './spec-schema.ts';
import {
  analysisRecordSchema,
  conditionSchema,
  rolloutFiguresSchema,
  rolloutHistoryEntrySchema,
  rolloutStatusSchema,
  statusSchema,
} from './status-schema.ts';

/** The whole object's schema. `metadata` is the API server's; only its name is constrained here. */
export const authConfigSchema: JsonSchema = {
  type: 'object',
  description:
    'Gatehouse gateway sign-in and API gate settings, rendered by the operator into the target Deployment environment, with the phased API_AUTH_MODE rollout.',
  required: ['spec'],
  'x-kubernetes-validations': ROOT_RULES,
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: specSchema,
    status: statusSchema,
  },
};

/**
 * The TypeScript name of each schema the types are generated for; the generator refuses an object schema
 * without one, so every type has a readable name.
 */
export const TYPE_NAMES: ReadonlyArray<readonly [JsonSchema, string]> = [
  [specSchema, 'AuthConfigSpec'],
  [targetSchema, 'TargetRef'],
  [secretKeyRefSchema, 'SecretKeyRef'],
  [oidcSchema, 'OidcSettings'],
  [ldapSchema, 'LdapSettings'],
  [webauthnSchema, 'WebAuthnSettings'],
  [envVarSchema, 'EnvVar'],
  [secretEnvVarSchema, 'SecretEnvVar'],
  [apiAuthModeSchema, 'ApiAuthMode'],
  [apiAuthSchema, 'ApiAuthSettings'],
  [rolloutPolicySchema, 'RolloutPolicy'],
  [prometheusSchema, 'PrometheusAnalysis'],
  [prometheusQueriesSchema, 'PrometheusQueries'],
  [statusSchema, 'AuthConfigStatus'],
  [conditionSchema, 'AuthConfigCondition'],
  [rolloutStatusSchema, 'RolloutStatus'],
  [rolloutHistoryEntrySchema, 'RolloutHistoryRecord'],
  [rolloutFiguresSchema, 'RolloutFigures'],
  [analysisRecordSchema, 'AnalysisRecord'],
];

/** The CustomResourceDefinition, as applied (operator/deploy/crd.yaml is this, as YAML). */
export const authConfigCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: CRD_NAME,
    labels: { 'app.kubernetes.io/name': MANAGED_BY, 'app.kubernetes.io/part-of': 'gatehouse' },
  },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { kind: KIND, listKind: LIST_KIND, plural: PLURAL, singular: SINGULAR, shortNames: SHORT_NAMES },
    versions: [
      {
        name: VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Mode', type: 'string', jsonPath: '.status.rollout.effectiveMode' },
          { name: 'Phase', type: 'integer', jsonPath: '.status.rollout.phase' },
          { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
          { name: 'Desired', type: 'string', jsonPath: '.spec.apiAuth.mode', priority: 1 },
          { name: 'Target', type: 'string', jsonPath: '.spec.target.name', priority: 1 },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: { openAPIV3Schema: authConfigSchema },
      },
    ],
  },
};
