import type { SessionIdentity } from '../gate/session-verifier.ts';
import type { MatchedRoute } from '../plugin/route-table.ts';

/**
 * The header that carries the request id, both ways: a caller's well-formed id is kept, and every answer and every
 * upstream request carries the id the gateway settled on. Written in this case; Node hands incoming headers in
 * lower case, so lookups in `req.headers` use `REQUEST_ID_HEADER.toLowerCase()`.
 */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/** What the pipeline knows about a request, attached by step 4 (request id and logging). */
export interface RequestState {
  /** The request id (docs/errors.md, "The problem document"): echoed in X-Request-Id, logs and audit rows. */
  readonly id: string;
  /** The route the request matched, known before the gates run; null when no route matches. */
  readonly route: MatchedRoute | null;
  /** Whether the URL carries a query string, as the route lookup found (false when no route matched). */
  readonly hasQuery: boolean;
}

declare module 'express-serve-static-core' {
  interface Request {
    /** Set by the request-context step; absent only in the security-header and CORS steps. */
    gatehouse: RequestState;
    /** The exact bytes of a JSON body, kept for signature checks (pipeline step 3). */
    rawBody?: Buffer;
    /**
     * The parsed JSON body, set by the body step when its bytes showed it cannot hold text the route
     * table's text guard refuses: the guard then skips walking it (see mayHoldUnstorableText).
     */
    textCheckedBody?: unknown;
    /** A body-parser error, held back until the request has an id (see body.ts). */
    bodyError?: unknown;
    /** Set once the error handler has run, so a second failure is not answered twice (see compose.ts). */
    gatehouseFailed?: boolean;
    /** The forwarded session's identity, set by gate layer 2 when it verified (absent otherwise). */
    identity?: SessionIdentity;
    /** performance.now() when gate layer 1 began, for the gate latency histogram. */
    gateStartedAt?: number;
    /** Layer 1 failed in warn mode (the request went on): its one verdict is would_deny. */
    gateHmacFailed?: boolean;
  }
}

declare module 'node:http' {
  interface IncomingMessage {
    /** performance.now() when node:http handed the request over; measures body reading too. */
    gatehouseStartedAt?: number;
  }
}
