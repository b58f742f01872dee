import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { isPublicAddress, NonPublicTargetError, webhookTargets, type Resolver } from './webhook-targets.ts';

describe('isPublicAddress', () => {
  it.each([
    '0.0.0.0',
    '10.1.2.3',
    '100.64.0.1',
    '100.127.255.254',
    '127.0.0.1',
    '127.255.255.255',
    '169.254.169.254',
    '172.16.0.1',
    '172.31.255.255',
    '192.0.0.8',
    '192.0.2.10',
    '192.168.1.1',
    '198.18.0.1',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '::',
    '::1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::a00:1',
    '2001:db8::1',
    '2002:7f00:1::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    'ff02::1',
    'not an address',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '93.184.215.14',
    '100.63.255.255',
    '172.32.0.1',
    '2606:4700:4700::1111',
    '2a00:1450::1',
  ])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

const fixed =
  (...addresses: string[]): Resolver =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('webhookTargets', () => {
  it('checks literal hosts and resolved names when a URL is set', async () => {
    const targets = webhookTargets({ allowPrivate: false, resolve: fixed('93.184.215.14', '10.0.0.7') });
    await expect(targets.checkUrl('https://93.184.215.14/hook')).resolves.toBeUndefined();
    for (const url of ['http://127.0.0.1/x', 'http://[::1]:8080/x', 'http://2130706433/', 'http://0/'])
      await expect(targets.checkUrl(url)).rejects.toMatchObject({ code: 'kyc.webhook_url.not_public' });
    // One private address among the answers is enough to refuse.
    await expect(targets.checkUrl('https://hooks.example/x')).rejects.toMatchObject({
      code: 'kyc.webhook_url.not_public',
    });
  });

  it('lets an unresolvable name be set (every delivery checks again) and allows anything when told to', async () => {
    const failing: Resolver = () =>
      Promise.reject(Object.assign(new Error('no such host'), { code: 'ENOTFOUND' }));
    await expect(
      webhookTargets({ allowPrivate: false, resolve: failing }).checkUrl('https://x.example/'),
    ).resolves.toBeUndefined();
    await expect(
      webhookTargets({ allowPrivate: true }).checkUrl('http://127.0.0.1/'),
    ).resolves.toBeUndefined();
  });

  it('refuses at connection time a name that resolved to a public address when it was set (DNS rebinding)', async () => {
    let calls = 0;
    const rebinding: Resolver = () => fixed(calls++ === 0 ? '93.184.215.14' : '127.0.0.1')('');
    const targets = webhookTargets({ allowPrivate: false, resolve: rebinding });
    await expect(targets.checkUrl('http://rebind.test/hook')).resolves.toBeUndefined();
    const error = await new Promise<Error>((resolve) => {
      const req = http.request('http://rebind.test/hook', { lookup: targets.lookup, agent: false });
      req.on('error', resolve);
      req.end();
    });
    expect(error).toBeInstanceOf(NonPublicTargetError);
    expect(() => targets.checkLiteral(new URL('http://[::ffff:127.0.0.1]/'))).toThrow(NonPublicTargetError);
  });

  it('connects to exactly the address it checked: a name only its resolver knows reaches that address', async () => {
    const server = createServer((_req, res) => res.end('pinned'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const targets = webhookTargets({ allowPrivate: true, resolve: fixed('127.0.0.1') });
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.request(
          `http://only-our-resolver.invalid:${port}/`,
          { lookup: targets.lookup, agent: false },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve(text));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(body).toBe('pinned');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
