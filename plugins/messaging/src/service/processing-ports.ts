import type { Registry } from 'prom-client';
import {
  createClassifier,
  createClassifierMetrics,
  DEFAULT_INTENT_DATA_PATH,
  loadIntentData,
} from '../classifier/index.ts';
import { createConversationEngine } from '../conversation/engine.ts';
import type { Normaliser } from '../classifier/normalise.ts';
import type { Classification } from '../classifier/types.ts';
import type {
  ConversationInput,
  ConversationOutput,
  KbLookupPort,
  Language,
  Reply,
} from '../conversation/types.ts';
import type { ChatModel } from '../llm/chat-model.ts';
import { createFaqAnswers, type FaqAnswers } from './faq-answers.ts';

/** The pieces processing needs from the classifier and the conversation engine. */
export interface ProcessingPorts {
  classify(text: string | null): Promise<Classification>;
  step(input: ConversationInput): Promise<ConversationOutput>;
  render(reply: Reply, language: Language): string;
  /** The published FAQ questions, matched on the classifier's tokens (README, "FAQ"). */
  faq: FaqAnswers;
  /** The classifier's compiled normaliser, shared with whatever groups messages the way it reads them. */
  normalise: Normaliser;
}

/**
 * The processing ports, built: the four-tier classifier (its data file loaded and checked at
 * boot) and the conversation engine (handlers, lead capture, reply templates), both sharing the model.
 */
export function createProcessingPorts(
  model: ChatModel,
  registry: Registry,
  knowledge?: KbLookupPort,
): ProcessingPorts {
  const classifier = createClassifier({
    data: loadIntentData(),
    source: DEFAULT_INTENT_DATA_PATH,
    model,
    metrics: createClassifierMetrics(registry),
  });
  const engine = createConversationEngine({ model, ...(knowledge ? { knowledge } : {}) });
  return {
    classify: async (text) => (await classifier.classify(text)).classification,
    step: (input) => engine.step(input),
    render: (reply, language) => engine.render(reply, language),
    faq: createFaqAnswers(classifier.normalise),
    normalise: classifier.normalise,
  };
}
