import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { eventJsonSchemas, EVENT_TYPES } from './event-schemas.ts';

describe('the published event schemas', () => {
  it('plugins/realtime/data/event-schemas.json is generated from the payload schemas (regenerate it when they change)', () => {
    const published = JSON.parse(
      readFileSync(new URL('../../data/event-schemas.json', import.meta.url), 'utf8'),
    ) as unknown;
    expect(published).toEqual(eventJsonSchemas());
  });

  it('name every event type the README lists', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const type of Object.keys(EVENT_TYPES)) expect(readme).toContain(`\`${type}\``);
  });
});
