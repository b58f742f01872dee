import { describe, expect, it } from 'vitest';
import { markerWatcher } from './postmaster.ts';

const READY = 'database system is ready to accept connections';

describe('markerWatcher', () => {
  it('sees the marker followed, in the same chunk, by more text than its own length', () => {
    const saw = markerWatcher(READY);
    const refused = '2026-11-24 16:17:02.123 UTC [4242] FATAL:  the database system is starting up\n';
    expect(saw(`LOG:  ${READY}\n${refused.repeat(5)}`)).toBe(true);
  });

  it('sees the marker split across chunks, one character at a time', () => {
    const saw = markerWatcher(READY);
    const text = `LOG:  listening on IPv4 address\nLOG:  ${READY}\n`;
    const answers = [...text].map((char) => saw(char));
    expect(answers.at(-1)).toBe(true);
    expect(answers.indexOf(true)).toBe(text.indexOf(READY) + READY.length - 1);
  });

  it('stays false without the marker, and true once it has been seen', () => {
    const saw = markerWatcher(READY);
    expect(saw('database system is ready to accept')).toBe(false);
    expect(saw(' nothing')).toBe(false);
    expect(saw(`${READY}`)).toBe(true);
    expect(saw('later text')).toBe(true);
  });
});
