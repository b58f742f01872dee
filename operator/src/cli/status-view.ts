/**
 * What `gatehouse rollout status` shows (operator/README.md, "gatehouse rollout"): a view of one AuthConfig's
 * rollout, built from the object as the API server returns it, and its text rendering. Pure: the time comes from
 * `now`, so the output is testable without a cluster.
 */
import { applyDefaults } from '../api/defaults.ts';
import { rolloutPhase } from '../api/rollout-settings.ts';
import { specSchema } from '../api/spec-schema.ts';
import type {
  AnalysisRecord,
  AuthConfigCondition,
  RolloutFigures,
  RolloutHistoryRecord,
  RolloutStatus,
} from '../api/types.generated.ts';
import { ANNOTATIONS } from '../api/names.ts';
import { isJsonObject, type JsonObject } from '../api/json.ts';
import { storedStatus } from '../reconcile/status.ts';
import { elapsedSeconds, formatDuration, formatRatio } from '../rollout/format.ts';
import { formatTable } from './table.ts';

/** One AuthConfig's rollout as the CLI reports it (also the `--output json` document). */
export interface RolloutView {
  namespace: string;
  name: string;
  generation?: number;
  observedGeneration?: number;
  /** spec.apiAuth.mode with the CRD default applied (a string: a hand-edited spec may hold anything). */
  desiredMode: string;
  automaticPromotion: boolean;
  /** The `gatehouse.dev/rollback` annotation is "true". */
  rollbackRequested: boolean;
  /** The `gatehouse.dev/promote` annotation (ISO-8601). */
  promotionRequestedAt?: string;
  /** status.rollout with its phase filled in; absent until the operator has reconciled the object once. */
  rollout?: Required<Pick<RolloutStatus, 'phase'>> & RolloutStatus;
  conditions: AuthConfigCondition[];
}

/** The view of an AuthConfig object (wire JSON). */
export function rolloutView(object: JsonObject): RolloutView {
  const metadata = isJsonObject(object.metadata) ? object.metadata : {};
  const annotations = isJsonObject(metadata.annotations) ? metadata.annotations : {};
  const status = storedStatus(object.status);
  // Defaults as the API server applies them, so an AuthConfig written without apiAuth reads as the CRD means it.
  const spec = applyDefaults(specSchema, object.spec ?? {});
  const apiAuth = isJsonObject(spec) && isJsonObject(spec.apiAuth) ? spec.apiAuth : {};
  const policy = isJsonObject(apiAuth.rollout) ? apiAuth.rollout : {};
  const promote = annotations[ANNOTATIONS.promote];
  const conditions = status.conditions ?? [];
  const phase3Ready = conditions.some((item) => item.type === 'Phase3Ready' && item.status === 'True');
  const rollout = status.rollout;
  return {
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
    name: typeof metadata.name === 'string' ? metadata.name : '',
    ...(typeof metadata.generation === 'number' ? { generation: metadata.generation } : {}),
    ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    desiredMode: typeof apiAuth.mode === 'string' ? apiAuth.mode : 'disabled',
    automaticPromotion: policy.automaticPromotion !== false,
    rollbackRequested: annotations[ANNOTATIONS.rollback] === 'true',
    ...(typeof promote === 'string' && promote !== '' ? { promotionRequestedAt: promote } : {}),
    ...(rollout !== undefined
      ? {
          rollout: {
            ...rollout,
            phase: rollout.phase ?? rolloutPhase(rollout.effectiveMode, phase3Ready),
            history: rollout.history ?? [],
          },
        }
      : {}),
    conditions,
  };
}

const PHASES = ['disabled', 'warn', 'enforce', 'enforce, phase 3 ready'];

/** The `status` text: a block of fields, then the conditions and the history as aligned tables. */
export function formatStatus(view: RolloutView, now: Date): string {
  const fields: Array<[string, string]> = [
    ['AuthConfig', `${view.namespace}/${view.name}${generationNote(view)}`],
    [
      'Desired mode',
      `${view.desiredMode} (spec.apiAuth.mode); automatic promotion ${view.automaticPromotion ? 'on' : 'off (paused)'}`,
    ],
  ];
  const rollout = view.rollout;
  if (rollout === undefined) {
    fields.push(['Effective mode', 'not reported yet: the operator has not reconciled this AuthConfig']);
  } else {
    fields.push(
      [
        'Effective mode',
        `${rollout.effectiveMode} (phase ${rollout.phase} of 3: ${PHASES[rollout.phase] ?? 'unknown'})`,
      ],
      ['Since', `${rollout.since} (${ago(rollout.since, now)})`],
      [
        'Checks',
        `${rollout.consecutiveBadChecks} bad in a row, ${rollout.consecutiveQueryErrors} query errors in a row`,
      ],
      ['Last analysis', rollout.lastAnalysis ? analysisText(rollout.lastAnalysis, now) : 'none yet'],
    );
  }
  fields.push(['Requests', requestsText(view)]);
  const width = Math.max(...fields.map(([label]) => label.length)) + 2;
  const block = fields.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}\n`).join('');

  const conditions =
    view.conditions.length === 0
      ? '  none reported yet\n'
      : indent(
          formatTable(
            ['type', 'status', 'reason', 'message'],
            view.conditions.map((item) => [item.type, item.status, item.reason, item.message]),
          ),
        );
  const history =
    rollout === undefined || rollout.history.length === 0
      ? '  no transitions yet\n'
      : indent(
          formatTable(
            ['time', 'from', 'to', 'reason', 'figures'],
            rollout.history.map((entry: RolloutHistoryRecord) => [
              entry.at,
              entry.from,
              entry.to,
              entry.reason,
              figuresText(entry.figures, entry.from),
            ]),
          ),
        );
  return `${block}\nConditions:\n${conditions}\nHistory:\n${history}`;
}

function generationNote(view: RolloutView): string {
  if (view.generation === undefined) return '';
  if (view.observedGeneration === undefined) return ` (generation ${view.generation}, not observed yet)`;
  return view.observedGeneration < view.generation
    ? ` (generation ${view.generation}; the operator last saw ${view.observedGeneration})`
    : ` (generation ${view.generation}, observed)`;
}

function requestsText(view: RolloutView): string {
  const requests: string[] = [];
  if (view.rollbackRequested)
    requests.push(
      `rollback to disabled (${ANNOTATIONS.rollback}; lift with gatehouse rollout rollback ${view.name} --clear)`,
    );
  if (view.promotionRequestedAt !== undefined)
    requests.push(`promotion approved at ${view.promotionRequestedAt} (${ANNOTATIONS.promote})`);
  return requests.length === 0 ? 'none' : requests.join('; ');
}

/** The ratio is what the analysed mode measures: would-deny in warn, fail in enforce. */
function analysisText(analysis: AnalysisRecord, now: Date): string {
  const when = `${analysis.at} (${ago(analysis.at, now)}), in ${analysis.mode}`;
  if (!analysis.ok) return `${when}: query failed: ${analysis.error ?? 'unknown error'}`;
  return `${when}: ${figuresText(analysis, analysis.mode)}`;
}

/** History and analysis figures in words: "5000 gated requests, would-deny ratio 0.1%". */
function figuresText(figures: RolloutFigures, mode: string): string {
  const parts: string[] = [];
  if (figures.gatedRequests !== undefined) parts.push(`${figures.gatedRequests} gated requests`);
  if (figures.failureRatio !== undefined)
    parts.push(`${mode === 'enforce' ? 'failure' : 'would-deny'} ratio ${formatRatio(figures.failureRatio)}`);
  if (figures.consecutiveBadChecks !== undefined) parts.push(`${figures.consecutiveBadChecks} bad checks`);
  if (figures.error !== undefined) parts.push(`query error: ${figures.error}`);
  return parts.join(', ');
}

function ago(at: string, now: Date): string {
  const seconds = elapsedSeconds(at, now);
  if (!Number.isFinite(seconds)) return 'unknown time';
  return seconds < 0 ? `in ${formatDuration(-seconds)}` : `${formatDuration(seconds)} ago`;
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
