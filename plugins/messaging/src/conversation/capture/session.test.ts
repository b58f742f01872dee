import { describe, expect, it } from 'vitest';
import type { CaptureSession } from '../types.ts';
import { expireSession, idleSession, missingSlot, SESSION_TTL_MS } from './session.ts';

const started = new Date('2025-01-06T03:00:00.000Z');
const awaitingEmail: CaptureSession = {
  state: 'awaiting_email',
  startedAt: started.toISOString(),
  lastActivityAt: started.toISOString(),
  reasked: { name: false, email: true },
};

describe('capture session TTL (6 hours)', () => {
  it('keeps a session up to 6 h after its last message', () => {
    const at = new Date(started.getTime() + SESSION_TTL_MS);
    expect(expireSession(awaitingEmail, at)).toEqual({ session: awaitingEmail, expired: false });
  });

  it('resets a session more than 6 h after its last message', () => {
    const at = new Date(started.getTime() + SESSION_TTL_MS + 1);
    expect(expireSession(awaitingEmail, at)).toEqual({ session: idleSession(), expired: true });
  });

  it('treats an unreadable timestamp as expired', () => {
    expect(expireSession({ ...awaitingEmail, lastActivityAt: 'yesterday' }, started).expired).toBe(true);
  });

  it('clears a paused session after 6 h without calling it an expiry', () => {
    const paused: CaptureSession = {
      ...idleSession(),
      lastActivityAt: started.toISOString(),
      reasked: { name: true, email: false },
    };
    const at = new Date(started.getTime() + SESSION_TTL_MS + 1);
    expect(expireSession(paused, at)).toEqual({ session: idleSession(), expired: false });
  });
});

describe('missingSlot', () => {
  it('asks for the name first, then the email; the phone is never required', () => {
    expect(missingSlot({})).toBe('name');
    expect(missingSlot({ email: 'budi@example.com' })).toBe('name');
    expect(missingSlot({ name: 'Budi' })).toBe('email');
    expect(missingSlot({ name: 'Budi', email: 'budi@example.com' })).toBeNull();
  });
});
