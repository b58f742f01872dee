import type { Reply } from '../types.ts';

/**
 * Every reply template the conversation engine can emit, with the parameters its texts may use. The
 * catalogue file (plugins/messaging/data/replies.v1.json) must define each of them; the loader refuses a
 * file that misses one or uses a parameter not listed here.
 */
export const CONVERSATION_TEMPLATES = {
  greeting: [],
  thanks: [],
  ask_name: [],
  ask_name_after_email: [],
  ask_email: ['name'],
  ask_email_after_name: ['name'],
  reask_name: [],
  reask_email: [],
  capture_paused: [],
  lead_captured: ['name', 'email'],
  lead_updated: ['name', 'email'],
  already_registered: ['name', 'email'],
  ask_human: [],
  visit_campus: [],
  fees: [],
  programs: [],
  schedule: [],
  location: [],
  general_info: [],
  general_info_not_understood: [],
  kb_answer: ['answer'],
  media_not_supported: [],
  location_received: [],
} as const satisfies Record<string, readonly string[]>;

export type TemplateId = keyof typeof CONVERSATION_TEMPLATES;

/** The templates that take no parameters. */
export type PlainTemplateId = {
  [K in TemplateId]: (typeof CONVERSATION_TEMPLATES)[K] extends readonly [] ? K : never;
}[TemplateId];

type ParamsOf<T extends TemplateId> = Record<(typeof CONVERSATION_TEMPLATES)[T][number], string>;

/** A typed reply: the template must exist and receive exactly its parameters. */
export function reply<T extends TemplateId>(
  template: T,
  ...params: ParamsOf<T> extends Record<string, never> ? [] : [ParamsOf<T>]
): Reply {
  return { template, params: { ...(params[0] ?? {}) } };
}
