import { describe, expect, it } from 'vitest';
import { referencedSecrets, secretsDigest, type ReadSecret } from './secret-references.ts';

const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

describe('referencedSecrets', () => {
  it('collects secretKeyRef and envFrom secretRef names across containers, sorted, optional only when always', () => {
    const refs = referencedSecrets([
      {
        name: 'gateway',
        env: [
          { name: 'A', valueFrom: { secretKeyRef: { name: 'zeta', key: 'a' } } },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'alpha', key: 'b', optional: true } } },
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'not-a-secret', key: 'c' } } },
          { name: 'D', value: 'plain' },
        ],
        envFrom: [{ configMapRef: { name: 'cm' } }, { secretRef: { name: 'bulk', optional: true } }],
      },
      { name: 'sidecar', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'bulk', key: 'e' } } }] },
    ]);
    expect(refs).toEqual([
      { name: 'alpha', optional: true },
      { name: 'bulk', optional: false },
      { name: 'zeta', optional: false },
    ]);
  });
});

describe('secretsDigest', () => {
  const base: ReadSecret[] = [
    { name: 'a', data: { one: b64('1'), two: b64('2') } },
    { name: 'b', data: { key: b64('value') } },
  ];

  it('depends on content only, not on the order of Secrets or keys', () => {
    const reordered: ReadSecret[] = [
      { name: 'b', data: { key: b64('value') } },
      { name: 'a', data: { two: b64('2'), one: b64('1') } },
    ];
    expect(secretsDigest(reordered)).toBe(secretsDigest(base));
    expect(secretsDigest(base)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('changes with any value, any key, a missing Secret and an empty one, and never contains a value', () => {
    const digests = new Set([
      secretsDigest(base),
      secretsDigest([base[0]!, { name: 'b', data: { key: b64('value2') } }]),
      secretsDigest([base[0]!, { name: 'b', data: { key2: b64('value') } }]),
      secretsDigest([base[0]!, { name: 'b', data: undefined }]),
      secretsDigest([base[0]!, { name: 'b', data: {} }]),
      // The same bytes split differently between key and value.
      secretsDigest([base[0]!, { name: 'b', data: { keyv: b64('alue') } }]),
    ]);
    expect(digests.size).toBe(6);
    for (const digest of digests) expect(digest).not.toContain(b64('value'));
  });
});
