import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../llm/chat-model.ts';
import { createClassifier, type Classifier } from './classifier.ts';
import { loadIntentData } from './intent-data.ts';
import { createClassifierMetrics } from './metrics.ts';

/**
 * Tier 3 against a stand-in OpenAI-compatible server on loopback (a language-model endpoint cannot run
 * in the tests, so a real HTTP peer stands in), reached through the real `createChatModel`
 * with a 200 ms timeout. Each scenario is a path prefix, so the tests share one server and no state.
 */
const TIMEOUT_MS = 200;
/** Tiers 1–2 cannot classify it (asserted below), so every call reaches the model. */
const UNCLASSIFIABLE = 'kampus ini sudah lama berdiri?';

interface SeenRequest {
  scenario: string;
  authorization: string | undefined;
  body: { model: string; messages: Array<{ role: string; content: string }> };
}

const seen: SeenRequest[] = [];
const pendingTimers = new Set<NodeJS.Timeout>();

function completion(res: ServerResponse, content: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'chatcmpl-test',
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content } }],
    }),
  );
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const match = /^\/([a-z-]+)\/v1\/chat\/completions$/.exec(req.url ?? '');
  if (req.method !== 'POST' || !match) {
    res.writeHead(404).end();
    return;
  }
  const scenario = match[1] as string;
  let raw = '';
  for await (const chunk of req) raw += String(chunk);
  seen.push({
    scenario,
    authorization: req.headers.authorization,
    body: JSON.parse(raw) as SeenRequest['body'],
  });
  switch (scenario) {
    case 'valid':
      return completion(res, JSON.stringify({ intent: 'askPrograms', confidence: 0.87 }));
    case 'unsure':
      return completion(res, JSON.stringify({ intent: 'askPrograms', confidence: 0.3 }));
    case 'slow': {
      // The peer is slow; the client's timeout is what is under test.
      const timer = setTimeout(() => {
        pendingTimers.delete(timer);
        completion(res, JSON.stringify({ intent: 'askPrograms', confidence: 0.9 }));
      }, TIMEOUT_MS * 5);
      pendingTimers.add(timer);
      res.on('close', () => {
        clearTimeout(timer);
        pendingTimers.delete(timer);
      });
      return;
    }
    case 'malformed':
      return completion(res, '{"intent": "askPrograms", "confidence": 0.9');
    case 'unknown-intent':
      return completion(res, JSON.stringify({ intent: 'orderPizza', confidence: 0.95 }));
    case 'failing':
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream exploded' } }));
      return;
    default:
      res.writeHead(404).end();
  }
}

let server: Server;
let origin: string;
const data = loadIntentData();

beforeAll(async () => {
  server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const timer of pendingTimers) clearTimeout(timer);
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function classifierFor(scenario: string, registry?: Registry): Classifier {
  return createClassifier({
    data,
    model: createChatModel({
      baseUrl: `${origin}/${scenario}/v1`,
      model: 'stand-in-model',
      apiKey: 'test-key',
      timeoutMs: TIMEOUT_MS,
    }),
    ...(registry ? { metrics: createClassifierMetrics(registry) } : {}),
  });
}

const FAST_TIERS_FELL_THROUGH = [
  { tier: 1, reason: 'no_match' },
  { tier: 2, reason: 'no_match' },
];
const DEFAULT_ANSWER = { intent: 'generalInfo', tier: 4, score: 0, margin: null, evidence: null };

describe('tier 3 (language model) against a stand-in OpenAI-compatible server', () => {
  it('uses an utterance that tiers 1–2 cannot classify', () => {
    expect(classifierFor('valid').classifyFast(UNCLASSIFIABLE)).toEqual({ fallThrough: 'no_match' });
  });

  it('uses a valid answer: tier 3, the model intent, its confidence, the model name', async () => {
    const registry = new Registry();
    const before = seen.length;
    const result = await classifierFor('valid', registry).classify(UNCLASSIFIABLE);
    expect(result).toEqual({
      classification: {
        intent: 'askPrograms',
        tier: 3,
        score: 0.87,
        margin: null,
        evidence: 'stand-in-model',
      },
      fellThrough: FAST_TIERS_FELL_THROUGH,
    });

    const request = seen[before] as SeenRequest;
    expect(request.authorization).toBe('Bearer test-key');
    expect(request.body.model).toBe('stand-in-model');
    const [system, user] = request.body.messages;
    expect(user).toEqual({ role: 'user', content: UNCLASSIFIABLE });
    expect(system?.role).toBe('system');
    for (const intent of ['wantRegister', 'askHuman', 'askFees', 'generalInfo'])
      expect(system?.content).toContain(`- ${intent}: `);
    expect(system?.content).toContain('"confidence"');

    const metrics = await registry.metrics();
    expect(metrics).toContain('gatehouse_messaging_classifications_total{tier="3",intent="askPrograms"} 1');
    expect(metrics).toContain(
      'gatehouse_messaging_classifier_fallthroughs_total{tier="2",reason="no_match"} 1',
    );
    expect(metrics).toContain('gatehouse_messaging_classifier_model_duration_seconds_count 1');
  });

  it.each([
    ['slow', 'a slow answer (> timeout)', 'timeout'],
    ['malformed', 'malformed JSON content', 'invalid'],
    ['unknown-intent', 'an intent name outside the list', 'invalid'],
    ['failing', 'HTTP 500', 'error'],
    ['unsure', 'a confidence below the floor', 'low_score'],
  ] as const)('falls through to tier 4 on %s (%s), recording %s', async (scenario, _what, reason) => {
    const registry = new Registry();
    const before = seen.filter((request) => request.scenario === scenario).length;
    const result = await classifierFor(scenario, registry).classify(UNCLASSIFIABLE);
    expect(result).toEqual({
      classification: DEFAULT_ANSWER,
      fellThrough: [...FAST_TIERS_FELL_THROUGH, { tier: 3, reason }],
    });
    expect(seen.filter((request) => request.scenario === scenario).length).toBe(before + 1);
    expect(await registry.metrics()).toContain(
      `gatehouse_messaging_classifier_fallthroughs_total{tier="3",reason="${reason}"} 1`,
    );
  });

  it('falls through with "disabled" when no model is configured, without a request', async () => {
    const classifier = createClassifier({
      data,
      model: createChatModel({
        baseUrl: undefined,
        model: undefined,
        apiKey: undefined,
        timeoutMs: TIMEOUT_MS,
      }),
    });
    const before = seen.length;
    expect(await classifier.classify(UNCLASSIFIABLE)).toEqual({
      classification: DEFAULT_ANSWER,
      fellThrough: [...FAST_TIERS_FELL_THROUGH, { tier: 3, reason: 'disabled' }],
    });
    expect(seen.length).toBe(before);
  });

  it('does not ask the model about a message without text', async () => {
    const before = seen.length;
    for (const text of [null, '', '🎉']) {
      expect(await classifierFor('valid').classify(text)).toEqual({
        classification: DEFAULT_ANSWER,
        fellThrough: [
          { tier: 1, reason: 'no_text' },
          { tier: 2, reason: 'no_text' },
          { tier: 3, reason: 'no_text' },
        ],
      });
    }
    expect(seen.length).toBe(before);
  });

  it('does not ask the model when tiers 1–2 answer', async () => {
    const before = seen.length;
    const result = await classifierFor('valid').classify('brp biaya kuliah kak');
    expect(result).toEqual({
      classification: { intent: 'askFees', tier: 1, score: 1, margin: null, evidence: 'berapa biaya' },
      fellThrough: [],
    });
    expect(seen.length).toBe(before);
  });
});
