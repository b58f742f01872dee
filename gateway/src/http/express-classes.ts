import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

/**
 * Request and response classes for node:http that carry Express's request/response API from birth.
 *
 * Express gives every request and response its API by `Object.setPrototypeOf` at the start of each
 * request. V8 handles a prototype change on a live object badly: the change itself is slow and the
 * objects' property access stays slower for the rest of the request. node:http can construct requests
 * and responses from given classes (`createServer({ IncomingMessage, ServerResponse })`), so these
 * classes put the same Express methods and getters (and `app`) on the prototype up front. Handlers see
 * exactly Express's API. Measured: docs/adr/0003-pipeline-as-compiled-chain.md.
 */
export interface ExpressClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

const made = new WeakMap<Express, ExpressClasses>();

/** The classes for one Express app (the same pair every call, so `instanceof` checks hold). */
export function expressClasses(app: Express): ExpressClasses {
  const existing = made.get(app);
  if (existing) return existing;
  class GatehouseRequest extends IncomingMessage {}
  class GatehouseResponse extends ServerResponse {}
  adopt(GatehouseRequest.prototype, app.request, app);
  adopt(GatehouseResponse.prototype, app.response, app);
  const classes = {
    IncomingMessage: GatehouseRequest,
    ServerResponse: GatehouseResponse as unknown as typeof ServerResponse,
  };
  made.set(app, classes);
  return classes;
}

/**
 * Copies Express's own methods and accessors (the layer between `app.request` and node's prototype), then
 * what the gateway defined on `app.request`/`app.response` themselves (client-address.ts), which wins.
 */
function adopt(target: object, expressProto: object, app: Express): void {
  const expressMethods = Object.getPrototypeOf(expressProto) as object;
  for (const layer of [expressMethods, expressProto]) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(layer))) {
      if (name === 'constructor' || name === 'app') continue;
      Object.defineProperty(target, name, descriptor);
    }
  }
  Object.defineProperty(target, 'app', { configurable: true, enumerable: true, writable: true, value: app });
}
