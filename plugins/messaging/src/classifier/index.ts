export {
  createClassifier,
  createFastClassifier,
  type Classifier,
  type ClassifyResult,
  type FastClassifier,
  type FellThrough,
} from './classifier.ts';
export { DEFAULT_INTENT_DATA_PATH, loadIntentData, parseIntentData, type IntentData } from './intent-data.ts';
export { createClassifierMetrics, type ClassifierMetrics } from './metrics.ts';
export { INTENTS, type Classification, type FallThrough, type Intent, type Tier } from './types.ts';
