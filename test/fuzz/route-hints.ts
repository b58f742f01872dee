/**
 * Near-valid inputs for routes whose handler parses the request itself instead of declaring a zod schema
 * on the route (so the route table cannot describe them). Optional: a route without a hint is fuzzed all
 * the same, with generic JSON; a hint only lets mutated bodies get past the handler's own checks, deeper
 * into its SQL. Keyed by the target's name (`METHODS pattern`).
 */
import fc from 'fast-check';
import { textMessage } from '../support/whatsapp.ts';
import type { FuzzJson } from './json-text.ts';

export interface RouteHint {
  body?: fc.Arbitrary<FuzzJson>;
  query?: fc.Arbitrary<Record<string, string>>;
}

/** Hints given what the fuzzed gateway was configured with. */
export function routeHints(config: { webhookVerifyToken: string }): Record<string, RouteHint> {
  return {
    // The provider's webhook (plugins/messaging/README.md): a notification of one or more text messages.
    'POST /webhook/chat': {
      body: fc
        .record({
          from: fc.stringMatching(/^62[0-9]{9,11}$/),
          text: fc.string({ minLength: 1, maxLength: 200 }),
          name: fc.string({ maxLength: 30 }),
          id: fc.stringMatching(/^wamid\.[A-Za-z0-9]{8,20}$/),
        })
        .map((message) => textMessage(message) as FuzzJson),
    },
    // The login page (plugins/auth/README.md, "Login pages"): any returnTo must render as a same-origin path.
    'GET /login': {
      query: fc.record({
        returnTo: fc.oneof(fc.string({ maxLength: 300 }), fc.webUrl(), fc.constant('//evil.example')),
        local: fc.constantFrom('1', '0', ''),
      }),
    },
    // The subscription challenge: right or wrong token.
    'GET /webhook/chat': {
      query: fc.record({
        'hub.mode': fc.constantFrom('subscribe', 'unsubscribe'),
        'hub.verify_token': fc.oneof(fc.constant(config.webhookVerifyToken), fc.string({ maxLength: 20 })),
        'hub.challenge': fc.string({ maxLength: 20 }),
      }),
    },
  };
}
