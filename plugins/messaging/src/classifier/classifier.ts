import { performance } from 'node:perf_hooks';
import type { ChatModel } from '../llm/chat-model.ts';
import { compileIntentData, type CompiledIntents } from './compile.ts';
import type { IntentData } from './intent-data.ts';
import type { ClassifierMetrics } from './metrics.ts';
import { buildSystemPrompt, classifyWithModel } from './model-tier.ts';
import { createKeywordTier, createWhitelistTier } from './tiers.ts';
import type { Classification, FallThrough, Tier } from './types.ts';

export interface FellThrough {
  tier: Tier;
  reason: FallThrough;
}

export interface ClassifyResult {
  classification: Classification;
  /** Every tier that did not answer, in order, with its reason (stored and counted). */
  fellThrough: FellThrough[];
}

export interface FastClassifier {
  /**
   * Tiers 1–2 only, synchronous. A message with no text (null, empty, or nothing left after
   * normalisation) falls through with `no_text`; otherwise the reason is tier 2's.
   */
  readonly classifyFast: (text: string | null) => Classification | { fallThrough: FallThrough };
}

export interface Classifier extends FastClassifier {
  /** The tiers' normaliser: other phrase tables (the FAQ's questions) are matched on the same tokens. */
  readonly normalise: (text: string) => string[];
  /**
   * Tiers 1 → 2 → 3 → 4. Never throws. A message with no text skips tiers 1–3 (each recorded as
   * `no_text`) and gets tier 4's `generalInfo`: an image or a sticker says nothing a tier could use, and
   * the conversation engine, which sees the message type, decides what to answer.
   */
  classify(text: string | null): Promise<ClassifyResult>;
}

function defaultAnswer(): Classification {
  return { intent: 'generalInfo', tier: 4, score: 0, margin: null, evidence: null };
}

function fastTiers(compiled: CompiledIntents): FastClassifier['classifyFast'] {
  const whitelist = createWhitelistTier(compiled);
  const keywords = createKeywordTier(compiled);
  return (text) => {
    const tokens = text ? compiled.normalise(text) : [];
    if (tokens.length === 0) return { fallThrough: 'no_text' };
    const first = whitelist(tokens);
    if (typeof first !== 'string') return first;
    const second = keywords(tokens);
    return typeof second !== 'string' ? second : { fallThrough: second };
  };
}

/** Tiers 1–2 alone (the benchmark, the gold-set test). Compiling the data may throw a BootError. */
export function createFastClassifier(data: IntentData, source?: string): FastClassifier {
  return { classifyFast: fastTiers(compileIntentData(data, source)) };
}

/**
 * The four-tier intent classifier (plugins/messaging/README.md, "Intent classification"). Built once at
 * startup: compiling the data throws a BootError when it is inconsistent. `model` is tier 3 (a disabled model
 * falls through with `disabled`).
 */
export function createClassifier(options: {
  data: IntentData;
  model: ChatModel;
  metrics?: ClassifierMetrics;
  /** Named in boot errors (the data file's path). */
  source?: string;
}): Classifier {
  const { model, metrics } = options;
  const compiled = compileIntentData(options.data, options.source);
  const whitelist = createWhitelistTier(compiled);
  const keywords = createKeywordTier(compiled);
  const systemPrompt = buildSystemPrompt(compiled);
  const minConfidence = compiled.thresholds.modelMinConfidence;

  function finish(classification: Classification, fellThrough: FellThrough[]): ClassifyResult {
    if (metrics) {
      for (const { tier, reason } of fellThrough) metrics.fellThrough(tier, reason);
      metrics.classified(classification);
    }
    return { classification, fellThrough };
  }

  return {
    classifyFast: fastTiers(compiled),
    normalise: compiled.normalise,

    async classify(text) {
      const fellThrough: FellThrough[] = [];
      const tokens = text ? compiled.normalise(text) : [];
      if (!text || tokens.length === 0) {
        fellThrough.push(
          { tier: 1, reason: 'no_text' },
          { tier: 2, reason: 'no_text' },
          { tier: 3, reason: 'no_text' },
        );
        return finish(defaultAnswer(), fellThrough);
      }
      const first = whitelist(tokens);
      if (typeof first !== 'string') return finish(first, fellThrough);
      fellThrough.push({ tier: 1, reason: first });
      const second = keywords(tokens);
      if (typeof second !== 'string') return finish(second, fellThrough);
      fellThrough.push({ tier: 2, reason: second });
      const started = performance.now();
      const third = await classifyWithModel(model, systemPrompt, text, minConfidence);
      if (model.model !== null) metrics?.modelCall((performance.now() - started) / 1000);
      if (typeof third !== 'string') return finish(third, fellThrough);
      fellThrough.push({ tier: 3, reason: third });
      return finish(defaultAnswer(), fellThrough);
    },
  };
}
