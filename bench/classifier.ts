/**
 * `npm run bench:classifier`: tiers 1–2 of the intent classifier, in-process, over the gold set's texts,
 * again and again (target ≥ 50,000 messages/s, bench/README.md, "Targets"). The baseline, measured in the
 * same run and interleaved, is the cheapest tokeniser one could write (NFKC, lower case, split on
 * whitespace), so the ratio shows what the normaliser and both tiers cost on top of reading the text at all.
 * The median round is reported. Output: JSON on stdout. Options (env): BENCH_SECONDS per round (default 3),
 * BENCH_ROUNDS (default 3).
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createFastClassifier } from '../plugins/messaging/src/classifier/classifier.ts';
import { loadGoldSet } from '../plugins/messaging/src/classifier/gold-set.ts';
import { loadIntentData } from '../plugins/messaging/src/classifier/intent-data.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 3);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const TARGET = 50_000;

const texts = loadGoldSet().map((item) => item.text);
const { classifyFast } = createFastClassifier(loadIntentData());

/** Runs `work` over every text until `duration` seconds have passed; returns messages per second. */
function measure(
  work: (text: string) => number,
  duration: number,
): { messagesPerSecond: number; sink: number } {
  let messages = 0;
  let sink = 0;
  const started = performance.now();
  const until = started + duration * 1000;
  let now = started;
  while (now < until) {
    for (const text of texts) sink += work(text);
    messages += texts.length;
    now = performance.now();
  }
  return { messagesPerSecond: messages / ((now - started) / 1000), sink };
}

const scenarios: Record<string, (text: string) => number> = {
  'baseline: NFKC, lower case, split': (text) => text.normalize('NFKC').toLowerCase().split(/\s+/).length,
  'tiers 1-2 (classifyFast)': (text) => {
    const result = classifyFast(text);
    return 'intent' in result ? result.tier : 0;
  },
};

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const results = new Map<string, number[]>();
let sink = 0;
// Round -1 warms up (JIT) and is not reported.
for (let round = -1; round < rounds; round++) {
  for (const [name, work] of Object.entries(scenarios)) {
    const result = measure(work, round < 0 ? Math.min(1, seconds) : seconds);
    sink += result.sink;
    if (round >= 0) results.set(name, [...(results.get(name) ?? []), result.messagesPerSecond]);
  }
}

const summary = Object.fromEntries(
  [...results].map(([name, values]) => [
    name,
    { messagesPerSecond: Math.round(median(values)), rounds: values.map(Math.round) },
  ]),
);
const classifier = median(results.get('tiers 1-2 (classifyFast)') ?? []);
const baseline = median(results.get('baseline: NFKC, lower case, split') ?? []);
const tiers = { tier1: 0, tier2: 0, fellThrough: 0 };
for (const text of texts) {
  const result = classifyFast(text);
  if (!('intent' in result)) tiers.fellThrough++;
  else if (result.tier === 1) tiers.tier1++;
  else tiers.tier2++;
}

process.stdout.write(
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version },
      settings: {
        seconds,
        rounds,
        messages: texts.length,
        source: 'plugins/messaging/data/gold-set.v1.jsonl',
      },
      answeredBy: tiers,
      results: summary,
      ratios: { 'tiers 1-2 vs baseline tokeniser': Math.round((classifier / baseline) * 1000) / 1000 },
      target: { 'tiers 1-2 messages/s': `>= ${TARGET}`, met: classifier >= TARGET },
      sink: sink > 0,
    },
    null,
    2,
  ) + '\n',
);
