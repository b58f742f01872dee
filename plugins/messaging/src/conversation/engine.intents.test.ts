import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTENTS } from '../classifier/types.ts';
import { createChatModel } from '../llm/chat-model.ts';
import { idleSession } from './capture/session.ts';
import { createConversationEngine } from './engine.ts';
import { HANDLERS } from './handlers/index.ts';
import { classified, conversationDriver } from '../../../../test/support/conversation-driver.ts';
import { startModelStandIn, type ModelStandIn } from '../../../../test/support/model-stand-in.ts';
import type { ConversationInput } from './types.ts';

const noModel = createChatModel({ baseUrl: undefined, model: undefined, apiKey: undefined, timeoutMs: 1500 });
const engine = createConversationEngine({ model: noModel });

describe('intent handlers', () => {
  it('has a named handler for every intent', () => {
    expect(Object.keys(HANDLERS).sort()).toEqual([...INTENTS].sort());
  });

  it.each([
    ['halo kak', 'greeting', 'greeting'],
    ['makasih ya', 'thanks', 'thanks'],
    ['berapa biaya kuliah?', 'askFees', 'fees'],
    ['ada jurusan apa saja?', 'askPrograms', 'programs'],
    ['kapan pendaftaran dibuka?', 'askSchedule', 'schedule'],
    ['kampusnya di mana?', 'askLocation', 'location'],
    ['info dong', 'generalInfo', 'general_info'],
  ] as const)('%j (%s) → %s, without touching capture', async (text, intent, template) => {
    const chat = conversationDriver(engine);
    const turn = await chat.say(text, intent);
    expect(turn.templates).toEqual([template]);
    expect(turn.output.result).toEqual({ intent, entities: {} });
    expect(turn.output.leadPatch).toEqual({});
    expect(chat.session).toEqual(idleSession());
  });

  it('escalates a request for a person (rule ask_human)', async () => {
    const chat = conversationDriver(engine);
    const turn = await chat.say('saya mau bicara dengan admin', 'askHuman');
    expect(turn.templates).toEqual(['ask_human']);
    expect(turn.output.result.escalation).toEqual({ reason: 'ask_human', eventKey: 'ask_human' });
  });

  it('keeps a capture session waiting when the contact asks for a person', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('tolong sambungkan ke staf', 'askHuman');
    expect(chat.session.state).toBe('awaiting_name');
  });

  it('invites a visitor and tells the admins', async () => {
    const chat = conversationDriver(engine);
    const turn = await chat.say('saya ingin berkunjung ke kampus', 'wantVisitCampus');
    expect(turn.templates).toEqual(['visit_campus']);
    expect(turn.output.result.notifyAdmin).toEqual({
      eventKey: 'visit_interest',
      message: 'The contact would like to visit the campus.',
    });
    expect(chat.session.state).toBe('idle');
  });

  it('admits it did not understand on the second default answer in a row', async () => {
    const chat = conversationDriver(engine);
    expect((await chat.say('asdf', 'generalInfo')).templates).toEqual(['general_info']);
    expect((await chat.say('qwerty', 'generalInfo')).templates).toEqual(['general_info_not_understood']);
    await chat.say('halo', 'greeting');
    expect((await chat.say('asdf', 'generalInfo')).templates).toEqual(['general_info']);
  });

  it('is pure: the same input gives the same output and is not modified', async () => {
    const input: ConversationInput = {
      text: 'nama saya Budi Santoso',
      messageType: 'text',
      classification: classified('sharePersonalInfo'),
      session: {
        ...idleSession(),
        state: 'awaiting_name',
        startedAt: '2025-01-06T02:00:00.000Z',
        lastActivityAt: '2025-01-06T02:00:00.000Z',
      },
      lead: {},
      senderPhone: null,
      defaultAnswersInARow: 0,
      now: new Date('2025-01-06T03:00:00.000Z'),
    };
    const copy = structuredClone(input);
    const first = await engine.step(input);
    expect(await engine.step(input)).toEqual(first);
    expect(input).toEqual(copy);
  });
});

describe('messages that are not text', () => {
  it('tells the contact it reads text only, for media without a caption', async () => {
    for (const messageType of ['image', 'audio', 'video', 'document', 'sticker', 'contacts', 'unsupported']) {
      const chat = conversationDriver(engine);
      const turn = await chat.say(null, 'generalInfo', { messageType });
      expect(turn.templates, messageType).toEqual(['media_not_supported']);
      expect(turn.output.result.entities).toEqual({ messageType });
    }
  });

  it('reads a caption or an interactive reply title as text', async () => {
    const chat = conversationDriver(engine);
    expect(
      (await chat.say('Daftar sekarang', 'wantRegister', { messageType: 'interactive' })).templates,
    ).toEqual(['ask_name']);
    const caption = await chat.say('nama saya Budi Santoso', 'sharePersonalInfo', { messageType: 'image' });
    expect(caption.templates).toEqual(['ask_email_after_name']);
  });

  it('thanks for a location and says nothing to a reaction', async () => {
    const chat = conversationDriver(engine);
    expect((await chat.say(null, 'generalInfo', { messageType: 'location' })).templates).toEqual([
      'location_received',
    ]);
    expect((await chat.say('👍', 'generalInfo', { messageType: 'reaction' })).templates).toEqual([]);
  });

  it('keeps a capture session waiting without counting a failed answer', async () => {
    const chat = conversationDriver(engine);
    await chat.say('saya mau daftar', 'wantRegister');
    await chat.say('nama saya Budi', 'sharePersonalInfo');
    chat.advance(60_000);
    const voice = await chat.say(null, 'generalInfo', { messageType: 'audio' });
    expect(voice.templates).toEqual(['media_not_supported']);
    expect(chat.session).toMatchObject({
      state: 'awaiting_email',
      lastActivityAt: chat.now.toISOString(),
      reasked: { name: false, email: false },
    });
  });

  it('answers in the conversation language', async () => {
    const chat = conversationDriver(engine);
    await chat.say('hello', 'greeting');
    const photo = await chat.say(null, 'generalInfo', { messageType: 'image' });
    expect(photo.texts).toEqual(['Sorry, I can only read text messages for now. Please type your question.']);
  });
});

describe('the lead extractor inside the engine (language model over HTTP)', () => {
  let standIn: ModelStandIn;
  beforeAll(async () => {
    standIn = await startModelStandIn();
  });
  afterAll(() => standIn.close());

  it('takes the name the model finds in an answer the expressions cannot read', async () => {
    standIn.answerWith(() => ({ json: { name: 'Budi', email: null, phone: null } }));
    const model = createChatModel({
      baseUrl: standIn.baseUrl,
      model: 'stand-in-model',
      apiKey: undefined,
      timeoutMs: 1500,
    });
    const chat = conversationDriver(createConversationEngine({ model }));
    await chat.say('saya mau daftar', 'wantRegister');
    const turn = await chat.say('kenalin, gue budi', 'generalInfo');
    expect(turn.templates).toEqual(['ask_email_after_name']);
    expect(turn.output.result.entities).toEqual({ name: 'Budi', extractedBy: 'model' });
    expect(turn.output.leadPatch).toEqual({ name: 'Budi' });
    expect(standIn.requests).toHaveLength(1);
  });

  it('re-asks as usual when the model is down', async () => {
    standIn.answerWith(() => ({ status: 503 }));
    const model = createChatModel({
      baseUrl: standIn.baseUrl,
      model: 'stand-in-model',
      apiKey: undefined,
      timeoutMs: 1500,
    });
    const chat = conversationDriver(createConversationEngine({ model }));
    await chat.say('saya mau daftar', 'wantRegister');
    expect((await chat.say('kenalin, gue budi', 'generalInfo')).templates).toEqual(['reask_name']);
  });
});
