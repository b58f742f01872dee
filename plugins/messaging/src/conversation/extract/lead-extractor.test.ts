import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createChatModel, type ChatModel } from '../../llm/chat-model.ts';
import { startModelStandIn, type ModelStandIn } from '../../../../../test/support/model-stand-in.ts';
import { createLeadExtractor, type ExtractionContext } from './lead-extractor.ts';

const IDLE: ExtractionContext = { awaiting: null, intent: 'generalInfo', expectName: false };
const AWAITING_NAME: ExtractionContext = { awaiting: 'name', intent: 'generalInfo', expectName: true };

let standIn: ModelStandIn;
let model: ChatModel;

beforeAll(async () => {
  standIn = await startModelStandIn();
  model = createChatModel({
    baseUrl: standIn.baseUrl,
    model: 'stand-in-model',
    apiKey: 'llm-key',
    timeoutMs: 1500,
  });
});
afterAll(() => standIn.close());
beforeEach(() => {
  standIn.requests.length = 0;
  standIn.answerWith(() => ({ json: {} }));
});

describe('lead extractor: regular expressions first', () => {
  it('does not call the model when the regular expressions found the data', async () => {
    const extraction = await createLeadExtractor(model).extract('nama saya Budi Santoso', IDLE);
    expect(extraction.fields).toEqual({ name: 'Budi Santoso' });
    expect(extraction.by).toBe('regex');
    expect(standIn.requests).toHaveLength(0);
  });

  it('does not call the model for a wish to register without data', async () => {
    await createLeadExtractor(model).extract('saya mau daftar', { ...IDLE, intent: 'wantRegister' });
    expect(standIn.requests).toHaveLength(0);
  });

  it('does not call the model for a message without any sign of personal data', async () => {
    const extraction = await createLeadExtractor(model).extract('berapa biaya kuliahnya?', {
      ...IDLE,
      intent: 'askFees',
    });
    expect(extraction).toMatchObject({ fields: {}, by: 'none' });
    expect(standIn.requests).toHaveLength(0);
  });

  it('uses the regular expressions alone when no model is configured', async () => {
    const disabled = createChatModel({
      baseUrl: undefined,
      model: undefined,
      apiKey: undefined,
      timeoutMs: 1500,
    });
    const extraction = await createLeadExtractor(disabled).extract('kenalin, gue Budi', AWAITING_NAME);
    expect(extraction).toMatchObject({ fields: {}, by: 'none' });
  });
});

describe('lead extractor: the language model over HTTP', () => {
  it('asks the model when the bot waits for a slot and the expressions found nothing', async () => {
    standIn.answerWith(() => ({ json: { name: 'Budi', email: null, phone: null } }));
    const extraction = await createLeadExtractor(model).extract('kenalin, gue budi', AWAITING_NAME);
    expect(extraction).toMatchObject({ fields: { name: 'Budi' }, nameSource: 'model', by: 'model' });

    expect(standIn.requests).toHaveLength(1);
    const request = standIn.requests[0];
    expect(request?.authorization).toBe('Bearer llm-key');
    expect(request?.body.model).toBe('stand-in-model');
    expect(request?.body.response_format).toEqual({ type: 'json_object' });
    expect(request?.body.messages[0]?.role).toBe('system');
    expect(request?.body.messages[0]?.content).toContain('just asked the sender for their name');
    expect(request?.body.messages[1]).toEqual({ role: 'user', content: 'kenalin, gue budi' });
  });

  it('asks the model for sharePersonalInfo even when no slot is awaited', async () => {
    standIn.answerWith(() => ({ json: { name: 'Rina Marlina' } }));
    const extraction = await createLeadExtractor(model).extract('ini rina marlina yang kemarin', {
      ...IDLE,
      intent: 'sharePersonalInfo',
    });
    expect(extraction.fields).toEqual({ name: 'Rina Marlina' });
  });

  it('lets the model pick between two candidates', async () => {
    standIn.answerWith(() => ({ json: { email: 'baru@example.com' } }));
    const extraction = await createLeadExtractor(model).extract(
      'email lama saya lama@example.com, yang baru baru@example.com',
      IDLE,
    );
    expect(extraction).toMatchObject({ fields: { email: 'baru@example.com' }, ambiguous: [], by: 'model' });
  });

  it('normalises the model phone number and accepts nulls for the other fields', async () => {
    standIn.answerWith(() => ({ json: { name: null, email: null, phone: '+62 857 1234 5678' } }));
    const extraction = await createLeadExtractor(model).extract(
      'hp 0812 3456 7890 atau 0857-1234-5678 (wa)',
      IDLE,
    );
    expect(extraction.fields).toEqual({ phone: '6285712345678' });
  });

  it('drops what the message does not contain (a model that invents data adds nothing)', async () => {
    standIn.answerWith(() => ({
      json: { name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' },
    }));
    const extraction = await createLeadExtractor(model).extract('ini data saya', {
      ...IDLE,
      intent: 'sharePersonalInfo',
    });
    expect(extraction).toMatchObject({ fields: {}, by: 'none' });
    expect(standIn.requests).toHaveLength(1);
  });

  it('validates the model values like its own (an invalid email, a landline, a phrase for a name)', async () => {
    standIn.answerWith(() => ({ json: { name: 'mau daftar', email: 'abc@', phone: '021-5551234' } }));
    const extraction = await createLeadExtractor(model).extract('abc@ mau daftar 021-5551234', AWAITING_NAME);
    expect(extraction).toMatchObject({ fields: {}, by: 'none', invalidEmail: true });
  });

  it.each([
    ['an HTTP error', { status: 500 }],
    ['content that is not JSON', { content: 'The name is Budi.' }],
    ['JSON that fails the schema', { json: { name: 42 } }],
  ] as const)('falls back to nothing on %s', async (_why, answer) => {
    standIn.answerWith(() => answer);
    const extraction = await createLeadExtractor(model).extract('kenalin, gue budi', AWAITING_NAME);
    expect(extraction).toMatchObject({ fields: {}, by: 'none' });
    expect(standIn.requests).toHaveLength(1);
  });

  it('falls back to nothing when the model is too slow', async () => {
    const impatient = createChatModel({
      baseUrl: standIn.baseUrl,
      model: 'stand-in-model',
      apiKey: undefined,
      timeoutMs: 100,
    });
    standIn.answerWith(() => ({ hang: true }));
    const extraction = await createLeadExtractor(impatient).extract('kenalin, gue budi', AWAITING_NAME);
    expect(extraction).toMatchObject({ fields: {}, by: 'none' });
  });
});
