import { describe, expect, it } from 'vitest';
import { isGatewayError } from '../../../../../gateway/src/plugin-api.ts';
import { GROUP_RESOURCE, URN, USER_RESOURCE } from './attributes.ts';
import type { JsonObject } from './json.ts';
import { applyPatch, patchOperations } from './patch.ts';
import { readResource } from './resource.ts';

const user: JsonObject = {
  userName: 'ada@example.com',
  active: true,
  name: { givenName: 'Ada', familyName: 'Lovelace' },
  emails: [
    { value: 'ada@example.com', type: 'work', primary: true },
    { value: 'ada@home.example', type: 'home' },
  ],
};

/** PATCH as the service applies it: the operations, then the same checks as a PUT. */
function patchUser(operations: unknown[], document: JsonObject = user): JsonObject {
  const ops = patchOperations({ schemas: [URN.patchOp], Operations: operations });
  return readResource(USER_RESOURCE, applyPatch(USER_RESOURCE, document, ops));
}

function scimTypeOf(work: () => unknown): string | undefined {
  try {
    work();
  } catch (err) {
    if (isGatewayError(err)) return err.code;
    throw err;
  }
  return undefined;
}

describe('PATCH as Entra ID sends it', () => {
  it('capitalised ops, a filtered sub-attribute path, a string boolean', () => {
    const patched = patchUser([
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'ada@contoso.com' },
      { op: 'Replace', path: 'active', value: 'False' },
      { op: 'Add', path: 'name.honorificPrefix', value: 'Countess' },
    ]);
    expect(patched).toMatchObject({
      active: false,
      name: { givenName: 'Ada', familyName: 'Lovelace', honorificPrefix: 'Countess' },
      emails: [
        { value: 'ada@contoso.com', type: 'work', primary: true },
        { value: 'ada@home.example', type: 'home' },
      ],
    });
  });

  it('a filtered path that matches nothing adds a value built from the filter', () => {
    const patched = patchUser([
      { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+62 812' },
    ]);
    expect(patched.phoneNumbers).toEqual([{ type: 'mobile', value: '+62 812' }]);
  });

  it('the manager as a bare id, under the enterprise URN', () => {
    const patched = patchUser([{ op: 'Add', path: `${URN.enterpriseUser}:manager`, value: 'boss-id' }]);
    expect(patched[URN.enterpriseUser]).toEqual({ manager: { value: 'boss-id' } });
  });

  it('members removed with a value list', () => {
    const group = { displayName: 'Support', members: [{ value: 'a' }, { value: 'b' }, { value: 'c' }] };
    const ops = patchOperations({
      Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: 'b' }] }],
    });
    expect(applyPatch(GROUP_RESOURCE, group, ops).members).toEqual([{ value: 'a' }, { value: 'c' }]);
  });
});

describe('PATCH as Okta sends it', () => {
  it('a path-less replace, repeating the id', () => {
    const group = { displayName: 'Old', members: [{ value: 'a' }] };
    const ops = patchOperations({ Operations: [{ op: 'replace', value: { id: 'g1', displayName: 'New' } }] });
    expect(applyPatch(GROUP_RESOURCE, group, ops)).toEqual({ displayName: 'New', members: [{ value: 'a' }] });
    expect(patchUser([{ op: 'replace', value: { active: false } }]).active).toBe(false);
  });

  it('a member removed by a value filter', () => {
    const group = { displayName: 'G', members: [{ value: 'a' }, { value: 'b' }] };
    const ops = patchOperations({ Operations: [{ op: 'remove', path: 'members[value eq "a"]' }] });
    expect(applyPatch(GROUP_RESOURCE, group, ops).members).toEqual([{ value: 'b' }]);
  });
});

describe('PATCH semantics', () => {
  it('add to a multi-valued attribute appends; replace replaces; remove without a filter removes all', () => {
    expect(
      patchUser([{ op: 'add', path: 'emails', value: [{ value: 'x@example.com' }] }]).emails,
    ).toHaveLength(3);
    expect(
      patchUser([{ op: 'replace', path: 'emails', value: [{ value: 'x@example.com' }] }]).emails,
    ).toEqual([{ value: 'x@example.com' }]);
    expect(patchUser([{ op: 'remove', path: 'emails' }])).not.toHaveProperty('emails');
    expect(patchUser([{ op: 'remove', path: 'emails[type eq "home"]' }]).emails).toHaveLength(1);
  });

  it('a new primary value makes the others not primary', () => {
    const patched = patchUser([
      { op: 'add', path: 'emails', value: [{ value: 'new@example.com', primary: true }] },
    ]);
    expect((patched.emails as JsonObject[]).filter((email) => email.primary === true)).toEqual([
      { value: 'new@example.com', primary: true },
    ]);
  });

  it('attributes it does not keep are ignored, whatever the operation', () => {
    expect(
      patchUser([
        { op: 'replace', path: 'addresses[type eq "work"].formatted', value: 'x' },
        { op: 'add', path: 'urn:example:custom:attr', value: 'x' },
        { op: 'replace', path: 'name.unknownPart', value: 'x' },
        { op: 'replace', value: { password: 'secret', 'x-custom': 1 } },
      ]),
    ).toEqual(user);
  });

  it('names in any case, and schema-prefixed paths', () => {
    expect(patchUser([{ op: 'replace', path: `${URN.user}:DISPLAYNAME`, value: 'Ada' }]).displayName).toBe(
      'Ada',
    );
  });

  it('refuses what it cannot do, with the right code', () => {
    expect(scimTypeOf(() => patchUser([{ op: 'remove' }]))).toBe('auth.scim.no_target');
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'meta', value: {} }]))).toBe(
      'auth.scim.mutability',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'groups', value: [] }]))).toBe(
      'auth.scim.mutability',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'userName[type eq "x"]', value: 'a' }]))).toBe(
      'auth.scim.invalid_path',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'userName.sub', value: 'a' }]))).toBe(
      'auth.scim.invalid_path',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'emails[type co "w"]', value: 'a' }]))).toBe(
      'auth.scim.invalid_path',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'name', value: 'Ada' }]))).toBe(
      'auth.scim.invalid_value',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'userName' }]))).toBe(
      'auth.scim.invalid_value',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'replace', path: 'userName', value: null }]))).toBe(
      'auth.scim.invalid_value',
    );
    expect(scimTypeOf(() => patchUser([{ op: 'copy', path: 'userName' }]))).toBe('auth.scim.invalid_syntax');
    expect(scimTypeOf(() => patchOperations({ Operations: [] }))).toBe('auth.scim.invalid_syntax');
    expect(scimTypeOf(() => patchOperations([]))).toBe('auth.scim.invalid_syntax');
  });

  it('leaves the document it was given unchanged', () => {
    const before = structuredClone(user);
    patchUser([{ op: 'remove', path: 'emails' }]);
    expect(user).toEqual(before);
  });
});

describe('reading a resource', () => {
  it('drops unknown and read-only attributes, reads booleans from strings, unassigns null and ""', () => {
    expect(
      readResource(USER_RESOURCE, {
        schemas: [URN.user],
        id: 'x',
        meta: {},
        userName: 'a@example.com',
        Active: 'TRUE',
        password: 'never kept',
        groups: [{ value: 'g' }],
        displayName: '',
        title: null,
        emails: [{ value: 'a@example.com', primary: 'true' }, { type: 'no value' }],
      }),
    ).toEqual({
      userName: 'a@example.com',
      active: true,
      emails: [{ value: 'a@example.com', primary: true }],
    });
  });

  it('refuses wrong types, long strings, too many values and a missing userName', () => {
    const bad = [
      { userName: true },
      { userName: {} },
      { userName: 'a'.repeat(257) },
      { userName: 'a', title: 'x'.repeat(1025) },
      { userName: 'a', emails: Array.from({ length: 101 }, (_, i) => ({ value: `${i}@example.com` })) },
      { userName: 'a', name: 'Ada' },
      { userName: 'a', active: 'yes' },
      { userName: 'a', [URN.enterpriseUser]: 'x' },
      {},
      { userName: '' },
    ];
    for (const body of bad) {
      expect(
        scimTypeOf(() => readResource(USER_RESOURCE, body)),
        JSON.stringify(body).slice(0, 60),
      ).toBe('auth.scim.invalid_value');
    }
    expect(scimTypeOf(() => readResource(USER_RESOURCE, []))).toBe('auth.scim.invalid_syntax');
  });
});
