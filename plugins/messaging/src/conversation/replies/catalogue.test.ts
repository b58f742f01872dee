import { describe, expect, it } from 'vitest';
import { parseReplyCatalogue, readReplyCatalogue, renderReply } from './catalogue.ts';
import { CONVERSATION_TEMPLATES, reply } from './templates.ts';

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9_]*)\}/g;

describe('replies.v1.json', () => {
  const catalogue = readReplyCatalogue();

  it('has an Indonesian and an English text for every template the engine can emit', () => {
    for (const template of Object.keys(CONVERSATION_TEMPLATES)) {
      expect(catalogue[template]?.id, `${template}.id`).toBeTruthy();
      expect(catalogue[template]?.en, `${template}.en`).toBeTruthy();
    }
  });

  it('uses, in both languages, every parameter the engine passes', () => {
    for (const [template, params] of Object.entries(CONVERSATION_TEMPLATES)) {
      for (const language of ['id', 'en'] as const) {
        const used = [...(catalogue[template]?.[language] ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]);
        expect(used.sort(), `${template}.${language}`).toEqual([...params].sort());
      }
    }
  });
});

describe('parseReplyCatalogue', () => {
  const complete = Object.fromEntries(
    Object.entries(CONVERSATION_TEMPLATES).map(([template, params]) => [
      template,
      {
        id: `id ${params.map((p) => `{${p}}`).join(' ')}`,
        en: `en ${params.map((p) => `{${p}}`).join(' ')}`,
      },
    ]),
  );

  it('accepts a complete file, with extra templates for other senders', () => {
    const catalogue = parseReplyCatalogue({
      version: 1,
      templates: { ...complete, follow_up: { en: 'Hi {anything}' } },
    });
    expect(catalogue.follow_up?.en).toBe('Hi {anything}');
  });

  it('refuses a file that misses a template the engine emits', () => {
    const { ask_name: _missing, ...rest } = complete;
    expect(() => parseReplyCatalogue({ version: 1, templates: rest })).toThrow(
      /templates\.ask_name: missing/,
    );
  });

  it('refuses a parameter the engine does not pass', () => {
    const templates = { ...complete, greeting: { id: 'Halo {nama}!', en: 'Hello!' } };
    expect(() => parseReplyCatalogue({ version: 1, templates })).toThrow(
      /greeting\.id: unknown parameter \{nama\}/,
    );
  });

  it('refuses a wrong shape: no English text, an unknown language, another version', () => {
    expect(() =>
      parseReplyCatalogue({ version: 1, templates: { ...complete, greeting: { id: 'Halo' } } }),
    ).toThrow(/templates\.greeting\.en/);
    expect(() =>
      parseReplyCatalogue({ version: 1, templates: { ...complete, greeting: { en: 'Hi', fr: 'Salut' } } }),
    ).toThrow(/greeting/);
    expect(() => parseReplyCatalogue({ version: 2, templates: complete })).toThrow(/version/);
  });
});

describe('renderReply', () => {
  const catalogue = parseReplyCatalogue({
    version: 1,
    templates: {
      ...Object.fromEntries(Object.keys(CONVERSATION_TEMPLATES).map((t) => [t, { id: 'x', en: 'x' }])),
      ask_email: { id: 'Baik, {name}. Email Anda?', en: 'Sure, {name}. Your email?' },
      greeting: { en: 'Hello!' },
    },
  });

  it('fills the parameters in the chosen language', () => {
    expect(renderReply(catalogue, reply('ask_email', { name: 'Budi' }), 'id')).toBe(
      'Baik, Budi. Email Anda?',
    );
    expect(renderReply(catalogue, reply('ask_email', { name: 'Jane' }), 'en')).toBe(
      'Sure, Jane. Your email?',
    );
  });

  it('falls back to English when the Indonesian text is missing', () => {
    expect(renderReply(catalogue, reply('greeting'), 'id')).toBe('Hello!');
  });

  it('throws on a template that is not in the catalogue', () => {
    expect(() => renderReply(catalogue, { template: 'nope', params: {} }, 'id')).toThrow(/nope/);
  });
});
