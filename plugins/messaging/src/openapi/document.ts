import packageJson from '../../../../package.json' with { type: 'json' };
import { createDocument } from 'zod-openapi';
import { openResponseObjects } from './common.ts';
import { faqPaths } from './faq-paths.ts';
import { feedbackPaths } from './feedback-paths.ts';
import { followUpPaths } from './follow-up-paths.ts';
import { inboxPaths } from './inbox-paths.ts';
import { kbEvaluationPaths } from './kb-evaluation-paths.ts';
import { kbGapPaths } from './kb-gap-paths.ts';
import { kbPaths } from './kb-paths.ts';
import { leadsPaths } from './leads-paths.ts';

export type OpenApiDocument = ReturnType<typeof createDocument>;

/** The security schemes: the two layers of the API gate (docs/api-auth-gate.md); a call needs both. */
export const HMAC_SCHEME = 'InternalSignature';
export const SESSION_SCHEME = 'ForwardedSession';

/**
 * The staff API as one OpenAPI 3.1 document, built from the zod schemas that validate its requests (README,
 * "Staff API"). Pure: the route serving it builds it once.
 */
export function buildStaffApiDocument(): OpenApiDocument {
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Gatehouse staff API',
        version: packageJson.version,
        description:
          "The dashboard's API over the messaging pipeline: the agent inbox, leads and feedback on the " +
          "bot's replies. Every call carries both layers of the API gate. What a caller sees follows from " +
          'their roles and cluster memberships; a record outside it answers 404. Errors are RFC 9457 ' +
          '`application/problem+json` with a stable `code`.',
      },
      servers: [{ url: '/' }],
      security: [{ [HMAC_SCHEME]: [], [SESSION_SCHEME]: [] }],
      components: {
        securitySchemes: {
          [HMAC_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Internal-Signature',
            description:
              'Gate layer 1: `t=<unix seconds>,v1=<hex>`, the HMAC-SHA256 under the internal secret of ' +
              '`<t>.<METHOD>.<path with query>.<raw body>` (docs/api-auth-gate.md).',
          },
          [SESSION_SCHEME]: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Forwarded-Session',
            description:
              "Gate layer 2: the signed-in staff member's Auth.js session token (or the gateway's own session).",
          },
        },
      },
      paths: {
        ...inboxPaths(),
        ...leadsPaths(),
        ...feedbackPaths(),
        ...followUpPaths(),
        ...faqPaths(),
        ...kbPaths(),
        ...kbGapPaths(),
        ...kbEvaluationPaths(),
      },
    },
    { override: openResponseObjects },
  );
}
