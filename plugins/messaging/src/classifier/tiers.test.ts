import { describe, expect, it } from 'vitest';
import { createFastClassifier } from './classifier.ts';
import { loadIntentData } from './intent-data.ts';
import type { Intent } from './types.ts';

const { classifyFast } = createFastClassifier(loadIntentData());

function intentOf(text: string): Intent | null {
  const result = classifyFast(text);
  return 'intent' in result ? result.intent : null;
}

describe('tier 1 (whitelist)', () => {
  it('answers with score 1, no margin and the phrase as evidence', () => {
    expect(classifyFast('Saya ingin mendaftar')).toEqual({
      intent: 'wantRegister',
      tier: 1,
      score: 1,
      margin: null,
      evidence: 'ingin mendaftar',
    });
    expect(classifyFast('bisa bicara dengan admin?')).toMatchObject({ intent: 'askHuman', tier: 1 });
    expect(classifyFast('I want to talk to a human')).toMatchObject({ intent: 'askHuman', tier: 1 });
  });

  it('resolves several matching intents by priority', () => {
    // A question outranks the wish to register; a request for a human outranks everything.
    expect(classifyFast('mau daftar, biayanya berapa?')).toMatchObject({ intent: 'askFees', tier: 1 });
    expect(classifyFast('saya mau daftar, bisa bicara dengan admin?')).toMatchObject({
      intent: 'askHuman',
      tier: 1,
    });
    expect(intentOf('biaya daftar berapa?')).toBe('askFees');
    expect(intentOf('kapan bisa daftar?')).toBe('askSchedule');
  });

  it('lets greetings, thanks and "mau tanya" decide only when they are the whole message', () => {
    expect(classifyFast('halo kak')).toMatchObject({ intent: 'greeting', tier: 1 });
    expect(classifyFast('halo kak, sy mau tanya')).toMatchObject({ intent: 'generalInfo', tier: 1 });
    expect(classifyFast('oke makasih kak 🙏')).toMatchObject({ intent: 'thanks', tier: 1 });
    expect(intentOf('halo kak, biaya kuliah berapa?')).toBe('askFees');
    expect(intentOf('terima kasih, tapi jurusan apa saja?')).toBe('askPrograms');
    expect(intentOf('biaya')).toBe('askFees');
  });
});

describe('negation', () => {
  it('does not read a negated wish as the wish', () => {
    expect(classifyFast('saya belum mau daftar')).toEqual({ fallThrough: 'negated' });
    expect(classifyFast("I don't want to register")).toEqual({ fallThrough: 'negated' });
    expect(intentOf('sy gak mau daftar kak')).toBeNull();
    expect(intentOf('jangan telepon saya')).toBeNull();
  });

  it('does not read "nama saya belum terdaftar" as a wish to register (nor as a name)', () => {
    const result = classifyFast('nama saya belum terdaftar');
    expect('intent' in result && result.intent).not.toBe('wantRegister');
    expect('intent' in result && result.tier === 1).toBe(false);
  });

  it('ends the scope at a clause boundary, a breaker or after the window', () => {
    expect(intentOf('tidak, saya mau daftar')).toBe('wantRegister');
    expect(intentOf('saya belum daftar tapi mau daftar')).toBe('wantRegister');
    expect(intentOf('saya tidak tahu cara daftar')).toBe('wantRegister');
    expect(intentOf('belum punya ijazah asli sekarang saya mau daftar')).toBe('wantRegister');
  });

  it('treats "gak?" after a phrase as a question tag', () => {
    expect(intentOf('bisa datang ke kampus gak?')).toBe('wantVisitCampus');
  });

  it('leaves intents that are questions alone: "tidak ada beasiswa?" still asks about fees', () => {
    expect(intentOf('tidak ada beasiswa?')).toBe('askFees');
    expect(intentOf('alamatnya bukan di jakarta ya?')).toBe('askLocation');
  });

  it('counts negated keywords against their intent in tier 2', () => {
    expect(classifyFast('saya tidak mau daftar, cuma tanya biaya')).toMatchObject({
      intent: 'askFees',
      tier: 2,
    });
  });
});

describe('tier 2 (keywords)', () => {
  it('answers with a score in (0, 1) and the lead over the second intent', () => {
    const result = classifyFast('uang semesteran mahal ga');
    expect(result).toMatchObject({ intent: 'askFees', tier: 2, evidence: null });
    if (!('intent' in result)) throw new Error('expected an answer');
    expect(result.score).toBeGreaterThan(0.5);
    expect(result.score).toBeLessThan(1);
    expect(result.margin).toBeGreaterThan(0.15);
  });

  it('falls through when unsure: too little evidence, or two intents too close', () => {
    expect(classifyFast('kira2 berapa ya')).toEqual({ fallThrough: 'low_score' });
    expect(classifyFast('tes masuk dan pindahan lokasi')).toEqual({ fallThrough: 'low_margin' });
    expect(classifyFast('kampus ini sudah lama berdiri?')).toEqual({ fallThrough: 'no_match' });
  });

  it('sends messages without text to the next tiers as no_text', () => {
    expect(classifyFast(null)).toEqual({ fallThrough: 'no_text' });
    expect(classifyFast('')).toEqual({ fallThrough: 'no_text' });
    expect(classifyFast('?!')).toEqual({ fallThrough: 'no_text' });
  });
});
