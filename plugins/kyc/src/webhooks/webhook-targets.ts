import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { kycErrors } from '../errors.ts';

/**
 * Address ranges a webhook may not reach (IANA special-purpose registries): anything that is not a
 * globally routed unicast address. A tenant's webhook URL is chosen by whoever administers the tenant,
 * and the gateway POSTs to it from inside the deployment: without this, a URL could reach the loopback
 * interface, the pod network, a cloud metadata service (169.254.169.254) or an internal admin port.
 */
const NON_GLOBAL: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']> = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", unspecified
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local, cloud metadata
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.0.2.0', 24, 'ipv4'], // documentation
  ['192.88.99.0', 24, 'ipv4'], // 6to4 relay anycast
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['198.51.100.0', 24, 'ipv4'], // documentation
  ['203.0.113.0', 24, 'ipv4'], // documentation
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64: reaches IPv4 hosts
  ['64:ff9b:1::', 48, 'ipv6'], // local NAT64
  ['100::', 64, 'ipv6'], // discard
  ['2001::', 23, 'ipv6'], // IETF protocol assignments, Teredo
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['2002::', 16, 'ipv6'], // 6to4: reaches IPv4 hosts
  ['3fff::', 20, 'ipv6'], // documentation
  ['5f00::', 16, 'ipv6'], // segment routing
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const blocked = new BlockList();
for (const [network, prefix, family] of NON_GLOBAL) blocked.addSubnet(network, prefix, family);
/**
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) reach IPv4 hosts through a dual-stack socket; none is a
 * webhook target. A list of its own: BlockList also matches plain IPv4 addresses against a mapped rule.
 */
const mapped = new BlockList();
mapped.addSubnet('::ffff:0:0', 96, 'ipv6');

/** True for a globally routed unicast IP address; false for private, loopback and other special ranges. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && mapped.check(address, 'ipv6')) return false;
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Resolves a host name to all its addresses (node's `dns.lookup`, as a connection would). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** The error a refused target gives the dispatcher; its message is stored as the attempt's error. */
export class NonPublicTargetError extends Error {
  override readonly name = 'NonPublicTargetError';
  readonly code = 'EKYCWEBHOOKTARGET';
}

export interface WebhookTargets {
  /** Refuses (400 `kyc.webhook_url.not_public`) a URL whose host is, or resolves to, a non-public address. */
  checkUrl(url: string): Promise<void>;
  /**
   * A `lookup` for node:net that resolves once, refuses if any address is not public, and hands the
   * connection exactly the addresses it checked: the socket connects to what was checked, so a name that
   * resolves differently a moment later (DNS rebinding) cannot slip through.
   */
  readonly lookup: LookupFunction;
  /** Refuses a URL whose host is a non-public IP literal (node:net does not call `lookup` for those). */
  checkLiteral(url: URL): void;
}

function familyOf(family: number | 'IPv4' | 'IPv6' | undefined): number {
  if (family === 'IPv4') return 4;
  if (family === 'IPv6') return 6;
  return family ?? 0;
}

/** The host of a URL as an address or name: IPv6 brackets removed. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The kyc plugin's rule for webhook targets (README, "Webhooks"): public addresses only, unless the
 * operator sets KYC_WEBHOOK_ALLOW_PRIVATE=true (development and tests, where receivers run on loopback).
 */
export function webhookTargets(options: { allowPrivate: boolean; resolve?: Resolver }): WebhookTargets {
  const resolve = options.resolve ?? systemResolver;
  const refused = (what: string) =>
    new NonPublicTargetError(`refused: the webhook host ${what} a non-public address`);

  const resolvePublic = async (hostname: string): Promise<LookupAddress[]> => {
    const addresses = await resolve(hostname);
    if (!options.allowPrivate && addresses.some((entry) => !isPublicAddress(entry.address))) {
      throw refused('resolves to');
    }
    return addresses;
  };

  const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
    resolvePublic(hostname).then(
      (addresses) => {
        const family = familyOf(lookupOptions.family);
        const usable = family === 0 ? addresses : addresses.filter((entry) => entry.family === family);
        const first = usable[0];
        if (first === undefined) {
          const err: NodeJS.ErrnoException = new Error(`no usable address for ${hostname}`);
          err.code = 'ENOTFOUND';
          callback(err, '', 0);
        } else if (lookupOptions.all === true) {
          callback(null, usable);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };

  return {
    lookup,
    checkLiteral(url) {
      const host = hostOf(url);
      if (!options.allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) throw refused('is');
    },
    async checkUrl(url) {
      if (options.allowPrivate) return;
      const host = hostOf(new URL(url));
      if (isIP(host) !== 0) {
        if (!isPublicAddress(host)) throw notPublic();
        return;
      }
      let addresses: LookupAddress[];
      try {
        addresses = await resolve(host);
      } catch {
        // A name that does not resolve today may tomorrow; every delivery checks again anyway.
        return;
      }
      if (addresses.some((entry) => !isPublicAddress(entry.address))) throw notPublic();
    },
  };
}

function notPublic() {
  return kycErrors.create('kyc.webhook_url.not_public', {
    detail:
      'The webhook URL points to, or its host name resolves to, a private, loopback, link-local or other ' +
      'non-public address',
  });
}
