import { describe, expect, it } from 'vitest';
import { createChatModel } from '../llm/chat-model.ts';
import { SESSION_TTL_MS } from './capture/session.ts';
import { createConversationEngine } from './engine.ts';
import { conversationDriver } from '../../../../test/support/conversation-driver.ts';

const HOUR = 60 * 60 * 1000;
const noModel = createChatModel({ baseUrl: undefined, model: undefined, apiKey: undefined, timeoutMs: 1500 });
const engine = createConversationEngine({ model: noModel });

describe('lead capture: a whole conversation', () => {
  it('halo → greeting; saya mau daftar → name; nama saya Budi Santoso → email; budi@example.com → captured', async () => {
    const chat = conversationDriver(engine);

    const hello = await chat.say('halo', 'greeting');
    expect(hello.templates).toEqual(['greeting']);
    expect(hello.output.language).toBe('id');
    expect(hello.texts[0]).toMatch(/^Halo!/);
    expect(chat.session.state).toBe('idle');
    expect(hello.output.leadPatch).toEqual({});

    const register = await chat.say('saya mau daftar', 'wantRegister');
    expect(register.templates).toEqual(['ask_name']);
    expect(register.texts[0]).toContain('nama lengkap');
    expect(chat.session).toMatchObject({ state: 'awaiting_name', startedAt: chat.now.toISOString() });

    chat.advance(60_000);
    const name = await chat.say('nama saya Budi Santoso', 'sharePersonalInfo');
    expect(name.templates).toEqual(['ask_email_after_name']);
    expect(name.texts[0]).toBe('Terima kasih, Budi Santoso! Sekarang boleh kami minta alamat email Anda?');
    expect(name.output.leadPatch).toEqual({ name: 'Budi Santoso' });
    expect(name.output.result).toMatchObject({
      intent: 'sharePersonalInfo',
      entities: { name: 'Budi Santoso' },
    });
    expect(chat.session).toMatchObject({ state: 'awaiting_email', lastActivityAt: chat.now.toISOString() });

    const email = await chat.say('budi@example.com', 'sharePersonalInfo');
    expect(email.templates).toEqual(['lead_captured']);
    expect(email.texts[0]).toContain('Budi Santoso');
    expect(email.texts[0]).toContain('budi@example.com');
    expect(email.output.leadPatch).toEqual({ email: 'budi@example.com' });
    expect(email.output.result.escalation).toEqual({ reason: 'lead_captured', eventKey: 'lead_captured' });
    expect(email.output.language).toBe('id');
    expect(chat.session.state).toBe('captured');
    expect(chat.lead).toEqual({ name: 'Budi Santoso', email: 'budi@example.com' });
  });

  it('takes the email first, then the name', async () => {
    const chat = conversationDriver(engine);
    await chat.say('halo', 'greeting');
    expect((await chat.say('saya mau daftar', 'wantRegister')).templates).toEqual(['ask_name']);

    const email = await chat.say('email saya budi@example.com', 'sharePersonalInfo');
    expect(email.templates).toEqual(['ask_name_after_email']);
    expect(chat.session.state).toBe('awaiting_name');
    expect(email.output.result.escalation).toBeUndefined();

    // A bare reply to "what is your name?", as the classifier's default tier would label it.
    const name = await chat.say('Budi Santoso', 'generalInfo');
    expect(name.templates).toEqual(['lead_captured']);
    expect(name.output.result.escalation?.reason).toBe('lead_captured');
    expect(chat.lead).toEqual({ name: 'Budi Santoso', email: 'budi@example.com' });
    expect(chat.session.state).toBe('captured');
  });

  it('starts capture from data given unprompted, in any order', async () => {
    const chat = conversationDriver(engine);
    const email = await chat.say('email saya budi@example.com', 'sharePersonalInfo');
    expect(email.templates).toEqual(['ask_name_after_email']);
    const name = await chat.say('nama saya budi santoso', 'sharePersonalInfo');
    expect(name.templates).toEqual(['lead_captured']);
    expect(chat.lead).toEqual({ name: 'Budi Santoso', email: 'budi@example.com' });
  });

  it('captures a name and an email given in one message', async () => {
    const chat = conversationDriver(engine);
    const turn = await chat.say(
      'Nama: Budi Santoso\nEmail: budi@example.com\nHP: 0812-3456-7890',
      'sharePersonalInfo',
    );
    expect(turn.templates).toEqual(['lead_captured']);
    expect(turn.output.leadPatch).toEqual({
      name: 'Budi Santoso',
      email: 'budi@example.com',
      phone: '6281234567890',
    });
    expect(turn.output.result.entities).toMatchObject({ extractedBy: 'regex' });
  });

  it('answers a question asked alongside the data before asking for what is missing', async () => {
    const chat = conversationDriver(engine);
    const turn = await chat.say('nama saya Budi, biaya kuliahnya berapa?', 'askFees');
    expect(turn.templates).toEqual(['fees', 'ask_email_after_name']);
    expect(chat.session.state).toBe('awaiting_email');
  });
});

describe('lead capture: never asks for a known slot', () => {
  it('asks only for the email when the lead already has a name', async () => {
    const chat = conversationDriver(engine, { lead: { name: 'Budi Santoso' } });
    const turn = await chat.say('saya mau daftar', 'wantRegister');
    expect(turn.templates).toEqual(['ask_email']);
    expect(turn.texts[0]).toContain('Budi Santoso');
    expect(chat.session.state).toBe('awaiting_email');
  });

  it('moves on to the email when the name became known while the bot waited for it', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    expect(chat.session.state).toBe('awaiting_name');
    const again = conversationDriver(engine, {
      lead: { name: 'Budi' },
      session: chat.session,
      start: chat.now,
    });
    expect((await again.say('saya mau daftar', 'wantRegister')).templates).toEqual(['ask_email']);
  });

  it('asks for the name once in a whole conversation', async () => {
    const chat = conversationDriver(engine);
    const templates: string[] = [];
    for (const [text, intent] of [
      ['halo', 'greeting'],
      ['saya mau daftar', 'wantRegister'],
      ['nama saya Budi Santoso', 'sharePersonalInfo'],
      ['saya mau daftar', 'wantRegister'],
      ['berapa biayanya?', 'askFees'],
      ['budi@example.com', 'sharePersonalInfo'],
      ['saya mau daftar', 'wantRegister'],
    ] as const) {
      templates.push(...(await chat.say(text, intent)).templates);
    }
    expect(templates.filter((t) => t.startsWith('ask_name'))).toEqual(['ask_name']);
    expect(templates).toEqual([
      'greeting',
      'ask_name',
      'ask_email_after_name',
      'ask_email',
      'fees',
      'lead_captured',
      'already_registered',
    ]);
  });

  it('does not escalate a lead that was already captured', async () => {
    const chat = conversationDriver(engine, { lead: { name: 'Budi', email: 'budi@example.com' } });
    const turn = await chat.say('saya mau daftar', 'wantRegister');
    expect(turn.templates).toEqual(['already_registered']);
    expect(turn.output.result.escalation).toBeUndefined();
    const update = await chat.say('email saya yang baru budi.baru@example.com', 'sharePersonalInfo');
    expect(update.templates).toEqual(['lead_updated']);
    expect(update.output.leadPatch).toEqual({ email: 'budi.baru@example.com' });
    expect(update.output.result.escalation).toBeUndefined();
  });

  it('replaces a known name only when it is stated explicitly', async () => {
    const chat = conversationDriver(engine, { lead: { name: 'Budi' } });
    expect((await chat.say('Halo, saya Andi', 'greeting')).output.leadPatch).toEqual({});
    expect((await chat.say('nama saya Andi Wijaya', 'sharePersonalInfo')).output.leadPatch).toEqual({
      name: 'Andi Wijaya',
    });
  });
});

describe('lead capture: invalid input is re-asked once, never in a loop', () => {
  it('re-asks a mistyped email once, then pauses and answers normally', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('nama saya Budi Santoso', 'sharePersonalInfo');

    const first = await chat.say('abc@', 'generalInfo');
    expect(first.templates).toEqual(['reask_email']);
    expect(first.texts[0]).toContain('nama@contoh.com');
    expect(chat.session).toMatchObject({ state: 'awaiting_email', reasked: { name: false, email: true } });

    const second = await chat.say('abc@', 'generalInfo');
    expect(second.templates[0]).toBe('capture_paused');
    expect(second.templates.slice(1)).toEqual(['general_info_not_understood']);
    expect(chat.session.state).toBe('idle');

    for (let i = 0; i < 3; i++) {
      const later = await chat.say('abc@', 'sharePersonalInfo');
      expect(later.templates.some((t) => t.startsWith('ask_') || t.startsWith('reask_'))).toBe(false);
      expect(chat.session.state).toBe('idle');
    }

    // Asked for explicitly, capture starts again, with a fresh re-ask allowance, and the name kept.
    expect((await chat.say('saya mau daftar', 'wantRegister')).templates).toEqual(['ask_email']);
    expect(chat.session).toMatchObject({ state: 'awaiting_email', reasked: { name: false, email: false } });
    expect((await chat.say('budi@example.com', 'sharePersonalInfo')).templates).toEqual(['lead_captured']);
  });

  it('re-asks the name once when the answer is not one, then pauses', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    expect((await chat.say('saya tidak tahu', 'generalInfo')).templates).toEqual(['reask_name']);
    const paused = await chat.say('hmm nanti dulu deh', 'generalInfo');
    expect(paused.templates[0]).toBe('capture_paused');
    expect(chat.session.state).toBe('idle');
    // Valid data restarts capture even after a pause.
    expect((await chat.say('nama saya Budi', 'sharePersonalInfo')).templates).toEqual([
      'ask_email_after_name',
    ]);
  });

  it('answers other questions while waiting, without counting them as failed answers', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('nama saya Budi Santoso', 'sharePersonalInfo');
    for (const [text, intent, template] of [
      ['berapa biaya kuliahnya?', 'askFees', 'fees'],
      ['jurusan apa saja?', 'askPrograms', 'programs'],
      ['makasih kak', 'thanks', 'thanks'],
    ] as const) {
      expect((await chat.say(text, intent)).templates).toEqual([template]);
      expect(chat.session).toMatchObject({ state: 'awaiting_email', reasked: { email: false } });
    }
    expect((await chat.say('budi@example.com', 'sharePersonalInfo')).templates).toEqual(['lead_captured']);
  });
});

describe('lead capture: the 6 h session TTL', () => {
  it('continues a session up to 6 h after the last message', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('nama saya Budi Santoso', 'sharePersonalInfo');
    chat.advance(SESSION_TTL_MS);
    const turn = await chat.say('budi@example.com', 'sharePersonalInfo');
    expect(turn.output.sessionExpired).toBeUndefined();
    expect(turn.templates).toEqual(['lead_captured']);
  });

  it('expires after 6 h of inactivity and restarts cleanly once, keeping what is known', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('nama saya Budi Santoso', 'sharePersonalInfo');
    expect(chat.session.state).toBe('awaiting_email');

    chat.advance(6 * HOUR + 60_000);
    const back = await chat.say('halo', 'greeting');
    expect(back.output.sessionExpired).toBe(true);
    expect(back.templates).toEqual(['greeting']);
    expect(chat.session).toEqual({
      state: 'idle',
      startedAt: null,
      lastActivityAt: null,
      reasked: { name: false, email: false },
    });

    // No reminder of the stale prompt, however many messages follow.
    expect((await chat.say('jadwal pendaftaran kapan?', 'askSchedule')).templates).toEqual(['schedule']);
    expect(chat.session.state).toBe('idle');

    const restart = await chat.say('saya mau daftar', 'wantRegister');
    expect(restart.output.sessionExpired).toBeUndefined();
    expect(restart.templates).toEqual(['ask_email']);
    expect(chat.session).toMatchObject({ state: 'awaiting_email', startedAt: chat.now.toISOString() });

    const done = await chat.say('budi@example.com', 'sharePersonalInfo');
    expect(done.templates).toEqual(['lead_captured']);
    expect(done.output.result.escalation?.eventKey).toBe('lead_captured');
  });

  it('does not take a bare reply to a prompt that expired as the name', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    chat.advance(7 * HOUR);
    const late = await chat.say('Budi Santoso', 'generalInfo');
    expect(late.output.sessionExpired).toBe(true);
    expect(late.output.leadPatch).toEqual({});
    expect(late.templates).toEqual(['general_info']);
    expect(chat.session.state).toBe('idle');
  });

  it('takes explicit data after an expiry as a new start', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('nama saya Budi Santoso', 'sharePersonalInfo');
    chat.advance(8 * HOUR);
    const late = await chat.say('email saya budi@example.com', 'sharePersonalInfo');
    expect(late.output.sessionExpired).toBe(true);
    expect(late.templates).toEqual(['lead_captured']);
    expect(chat.session).toMatchObject({ state: 'captured', startedAt: chat.now.toISOString() });
  });
});

describe('lead capture: phone numbers', () => {
  it('normalises a phone number given in a message to the 62 form', async () => {
    const chat = conversationDriver(engine);
    const turn = await chat.say('nama saya Budi, no hp +62 812-3456-7890', 'sharePersonalInfo');
    expect(turn.output.leadPatch).toEqual({ name: 'Budi', phone: '6281234567890' });
    expect(turn.templates).toEqual(['ask_email_after_name']);
  });

  it("fills the lead's phone from the sender's number once capture runs, not before", async () => {
    const chat = conversationDriver(engine, { senderPhone: '6281111111111' });
    expect((await chat.say('halo', 'greeting')).output.leadPatch).toEqual({});
    expect((await chat.say('saya mau daftar', 'wantRegister')).output.leadPatch).toEqual({
      phone: '6281111111111',
    });
    expect((await chat.say('nama saya Budi', 'sharePersonalInfo')).output.leadPatch).toEqual({
      name: 'Budi',
    });
  });

  it('prefers a number the contact writes over the sender number', async () => {
    const chat = conversationDriver(engine, { senderPhone: '6281111111111' });
    const turn = await chat.say('nomor saya 0857 1234 5678', 'sharePersonalInfo');
    expect(turn.output.leadPatch).toEqual({ phone: '6285712345678' });
    expect(turn.templates).toEqual(['ask_name']);
  });
});

describe('lead capture in English', () => {
  it('runs the whole conversation in English', async () => {
    const chat = conversationDriver(engine);
    const hello = await chat.say('hello', 'greeting');
    expect(hello.output.language).toBe('en');
    expect(hello.texts[0]).toMatch(/^Hello!/);

    expect((await chat.say('I want to register', 'wantRegister')).texts).toEqual([
      "We'd be glad to help you register. May we have your full name?",
    ]);
    const name = await chat.say('my name is John Smith', 'sharePersonalInfo');
    expect(name.texts).toEqual(['Thank you, John Smith! Could you now share your email address?']);
    const email = await chat.say('john@example.com', 'sharePersonalInfo');
    expect(email.output.language).toBe('en');
    expect(email.templates).toEqual(['lead_captured']);
    expect(email.texts[0]).toContain('Our admissions team will contact you');
    expect(chat.lead).toEqual({ name: 'John Smith', email: 'john@example.com' });
  });

  it('switches language per message and keeps it for messages without cues', async () => {
    const chat = conversationDriver(engine);
    expect((await chat.say('halo', 'greeting')).output.language).toBe('id');
    expect((await chat.say('I want to register', 'wantRegister')).output.language).toBe('en');
    expect((await chat.say('Budi Santoso', 'generalInfo')).output.language).toBe('en');
    expect((await chat.say('terima kasih', 'thanks')).output.language).toBe('id');
  });
});
