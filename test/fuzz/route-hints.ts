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
    ...scimHints(),
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

const SCIM = '/api/v1/scim/v2';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * SCIM requests as Entra ID and Okta shape them (plugins/auth/README.md, "SCIM provisioning"): users, groups
 * with members, PatchOps with the paths and values identity providers send.
 */
function scimHints(): Record<string, RouteHint> {
  const text = fc.string({ maxLength: 40 });
  const user = fc.record(
    {
      schemas: fc.constant(['urn:ietf:params:scim:schemas:core:2.0:User']),
      userName: fc.oneof(fc.emailAddress(), text),
      externalId: text,
      active: fc.oneof(fc.boolean(), fc.constantFrom('True', 'False')),
      displayName: text,
      name: fc.record({ givenName: text, familyName: text }, { requiredKeys: [] }),
      emails: fc.array(
        fc.record({ value: fc.emailAddress(), type: fc.constantFrom('work', 'home'), primary: fc.boolean() }),
        { maxLength: 3 },
      ),
      password: text,
    },
    { requiredKeys: ['userName'] },
  );
  const members = fc.array(fc.record({ value: fc.uuid(), display: text }, { requiredKeys: ['value'] }), {
    maxLength: 3,
  });
  const group = fc.record(
    { schemas: fc.constant(['urn:ietf:params:scim:schemas:core:2.0:Group']), displayName: text, members },
    { requiredKeys: ['displayName'] },
  );
  const operation = fc.record(
    {
      op: fc.constantFrom('add', 'remove', 'replace', 'Add', 'Replace', 'Remove'),
      path: fc.constantFrom(
        'active',
        'userName',
        'displayName',
        'name.familyName',
        'emails[type eq "work"].value',
        'members',
        'members[value eq "00000000-0000-4000-8000-000000000000"]',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager',
        'id',
      ),
      value: fc.oneof(
        fc.boolean(),
        fc.constantFrom('False', 'True'),
        text,
        members,
        fc.record({ active: fc.boolean(), displayName: text }, { requiredKeys: [] }),
      ),
    },
    { requiredKeys: ['op'] },
  );
  const patch = fc.record({
    schemas: fc.constant([PATCH_OP]),
    Operations: fc.array(operation, { minLength: 1, maxLength: 4 }),
  });
  const asJson = (arbitrary: fc.Arbitrary<unknown>) => arbitrary as fc.Arbitrary<FuzzJson>;
  return {
    [`POST ${SCIM}/Users`]: { body: asJson(user) },
    [`PUT ${SCIM}/Users/:id`]: { body: asJson(user) },
    [`PATCH ${SCIM}/Users/:id`]: { body: asJson(patch) },
    [`POST ${SCIM}/Groups`]: { body: asJson(group) },
    [`PUT ${SCIM}/Groups/:id`]: { body: asJson(group) },
    [`PATCH ${SCIM}/Groups/:id`]: { body: asJson(patch) },
  };
}
