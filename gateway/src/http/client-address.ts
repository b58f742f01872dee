import { isIP } from 'node:net';
import type { Express, Request } from 'express';
import proxyaddr from 'proxy-addr';

/**
 * `req.ip` and `req.ips` as Express computes them, except that an entry of X-Forwarded-For that is not
 * an IP address ends the chain. Express (proxy-addr) only asks whether each hop is trusted, never whether
 * what a trusted hop forwarded is an address: with TRUST_PROXY=true (or more hops than there are proxies)
 * `X-Forwarded-For: anything` became `req.ip`, and audit rows and sessions store the client address in
 * an `inet` column, so the insert failed (a 500 after the row it audits was written, or a lost audit
 * row). A hop that forwards something that is not an address is not telling us a client address: the
 * last valid address before it is the client as far as anyone can tell.
 *
 * Defined on `app.request` itself, where `expressClasses` (express-classes.ts) picks them up.
 */
export function installClientAddress(app: Express): void {
  Object.defineProperty(app.request, 'ip', {
    configurable: true,
    enumerable: true,
    get(this: Request): string | undefined {
      const chain = validChain(this);
      return chain[chain.length - 1];
    },
  });
  Object.defineProperty(app.request, 'ips', {
    configurable: true,
    enumerable: true,
    get(this: Request): string[] {
      // Farthest first, without the socket's own address, as Express answers.
      const chain = validChain(this);
      chain.reverse().pop();
      return chain;
    },
  });
}

/** The socket's address, then each trusted hop's forwarded address, stopping at the first non-address. */
function validChain(req: Request): string[] {
  const chain = proxyaddr.all(req, req.app.get('trust proxy fn') as (addr: string, i: number) => boolean);
  for (let i = 1; i < chain.length; i++) {
    if (isIP(chain[i] as string) === 0) {
      chain.length = i;
      break;
    }
  }
  return chain;
}
