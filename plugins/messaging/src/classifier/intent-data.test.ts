import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BootError } from '../../../../gateway/src/plugin-api.ts';
import { createChatModel } from '../llm/chat-model.ts';
import { createClassifier } from './classifier.ts';
import { DEFAULT_INTENT_DATA_PATH, loadIntentData, type IntentData } from './intent-data.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'gatehouse-intents-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const original = JSON.parse(readFileSync(DEFAULT_INTENT_DATA_PATH, 'utf8')) as IntentData;
const disabledModel = createChatModel({
  baseUrl: undefined,
  model: undefined,
  apiKey: undefined,
  timeoutMs: 1,
});

let counter = 0;
function writeData(content: string): string {
  const file = path.join(dir, `intents-${++counter}.json`);
  writeFileSync(file, content);
  return file;
}

/** The shipped data, changed by `edit`, written to a temporary file. */
function variant(edit: (data: IntentData) => void): string {
  const data = structuredClone(original);
  edit(data);
  return writeData(JSON.stringify(data));
}

/** The BootError that loading (and, for semantic checks, compiling) the file throws. */
function bootError(file: string): BootError {
  try {
    createClassifier({ data: loadIntentData(file), model: disabledModel, source: file });
  } catch (err) {
    if (err instanceof BootError) return err;
    throw err;
  }
  throw new Error('expected a BootError');
}

describe('intent data loader', () => {
  it('loads and compiles the shipped file (version 1, every intent)', () => {
    const data = loadIntentData();
    expect(data.version).toBe(1);
    expect(() => createClassifier({ data, model: disabledModel })).not.toThrow();
  });

  it('refuses a missing file and invalid JSON, naming the file', () => {
    const missing = path.join(dir, 'nope.json');
    expect(() => loadIntentData(missing)).toThrow(BootError);
    expect(() => loadIntentData(missing)).toThrow(/nope\.json: cannot read the intent data file/);
    const broken = writeData('{"version": 1,');
    expect(() => loadIntentData(broken)).toThrow(/not valid JSON/);
  });

  it('refuses another version, a missing intent and thresholds out of range, listing every problem', () => {
    const file = variant((data) => {
      (data as { version: number }).version = 2;
      delete (data.intents as Partial<IntentData['intents']>).askFees;
      data.thresholds.tier2MinScore = 1.5;
    });
    const error = bootError(file);
    expect(error.problems).toHaveLength(3);
    expect(error.message).toContain(`${file}: version`);
    expect(error.message).toContain(`${file}: intents.askFees`);
    expect(error.message).toContain(`${file}: thresholds.tier2MinScore`);
  });

  it('refuses unknown keys and a zero weight', () => {
    const file = variant((data) => {
      (data.intents.askFees as Record<string, unknown>).weights = {};
      data.intents.askFees.keywords.biaya = 0;
    });
    const error = bootError(file);
    expect(error.message).toMatch(/intents\.askFees: Unrecognized key/);
    expect(error.message).toContain('intents.askFees.keywords.biaya: a weight of 0 does nothing');
  });

  it('refuses a phrase of two intents, a phrase not in normal form and one that normalises to nothing', () => {
    const file = variant((data) => {
      data.intents.askFees.phrases.push('mau daftar');
      data.intents.askLocation.phrases.push('Lokasi Kampus DMN?');
      data.intents.greeting.alonePhrases.push('kak');
    });
    const error = bootError(file);
    expect(error.message).toContain('"mau daftar" is also a phrase of');
    expect(error.message).toContain(
      '"Lokasi Kampus DMN?" is not in normal form; write "lokasi kampus dimana"',
    );
    expect(error.message).toContain('"kak" is empty once normalised');
  });

  it('refuses chained rewrites, a negator that is rewritten away and an unknown placeholder', () => {
    const file = variant((data) => {
      data.normalisation.rewrites.xyz = 'gmn';
      data.negation.negators.push('gak');
      data.intents.sharePersonalInfo.keywords['<address>'] = 1;
    });
    const error = bootError(file);
    expect(error.message).toContain('normalisation.rewrites."xyz": "gmn" is rewritten again');
    expect(error.message).toContain('negation.negators: "gak" is not in normal form; write "tidak"');
    expect(error.message).toContain('unknown placeholder <address>');
  });
});
