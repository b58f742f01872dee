export { createConversationEngine, type ConversationEngine } from './engine.ts';
export { SESSION_TTL_MS, idleSession } from './capture/session.ts';
export { normaliseEmail } from './extract/email.ts';
export { normalisePhone } from './extract/phone.ts';
export {
  parseReplyCatalogue,
  readReplyCatalogue,
  renderReply,
  type ReplyCatalogue,
} from './replies/catalogue.ts';
export { CONVERSATION_TEMPLATES, type TemplateId } from './replies/templates.ts';
export type * from './types.ts';
