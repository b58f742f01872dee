import { touch } from '../capture/session.ts';
import { reply } from '../replies/templates.ts';
import type { CaptureSession, Reply } from '../types.ts';
import type { HandlerOutcome } from './types.ts';

/** Message types that need no answer: a reaction to a bot message, a provider system notice. */
const SILENT_TYPES: ReadonlySet<string> = new Set(['reaction', 'system']);

/**
 * Messages the engine does not read as text (README, "Non-text messages"). Interactive and button replies
 * arrive with their title as `text` and are handled as text; so is a media caption. What is left: a location
 * is thanked for (with how to ask where the campus is), reactions and system notices get no reply, and
 * everything else (image, audio, video, document, sticker, contacts, unsupported) is told that the bot reads
 * text only. A running capture session keeps waiting; a message without text never counts as a failed answer.
 */
export function nonTextOutcome(messageType: string, session: CaptureSession, now: Date): HandlerOutcome {
  let replies: Reply[];
  if (SILENT_TYPES.has(messageType)) replies = [];
  else if (messageType === 'location') replies = [reply('location_received')];
  else if (messageType === 'text') replies = [reply('general_info')];
  else replies = [reply('media_not_supported')];
  return { intent: 'generalInfo', replies, session: touch(session, now) };
}

/** Whether the engine reads the message as text (a location or a reaction never is, whatever `text` holds). */
export function readsAsText(messageType: string, text: string | null): text is string {
  if (messageType === 'location' || SILENT_TYPES.has(messageType)) return false;
  return text !== null && text.trim().length > 0;
}
