/** One open watch stream: newline-delimited JSON events, with the faults tests inject (410, stall). */
import type { ServerResponse } from 'node:http';
import { failureStatus, KubeError } from './status.ts';
import type { ChangeEvent, KubeObject, ResourceType, WatchEventType } from './types.ts';

export interface WatchFilter {
  resource: ResourceType;
  namespace: string | undefined;
  matches: (object: KubeObject) => boolean;
}

export class WatchStream {
  private readonly response: ServerResponse;
  private readonly filter: WatchFilter;
  /** A stalled stream keeps its connection but is sent nothing more (a silently dead watch). */
  stalled = false;
  closed = false;
  /** The resourceVersion of the last event sent, for the 410 message. */
  lastResourceVersion = 0;

  constructor(response: ServerResponse, filter: WatchFilter) {
    this.response = response;
    this.filter = filter;
    response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache' });
    response.flushHeaders();
  }

  /** Sends a change if it concerns this watch; label transitions become ADDED / DELETED as the real cacher does. */
  deliver(event: ChangeEvent): void {
    const { resource, namespace, matches } = this.filter;
    // Compared by name: a CRD update or another served version is the same stored type.
    if (event.resource.group !== resource.group || event.resource.plural !== resource.plural) return;
    if (namespace !== undefined && event.object.metadata.namespace !== namespace) return;
    const now = event.type !== 'DELETED' && matches(event.object);
    const before = event.previous !== undefined && matches(event.previous);
    let type: WatchEventType | undefined;
    if (event.type === 'DELETED') type = before ? 'DELETED' : undefined;
    else if (now) type = before || event.type === 'ADDED' ? event.type : 'ADDED';
    else if (before) type = 'DELETED';
    if (type) this.send(type, event.object);
  }

  /** Whether this stream watches a type (by group and plural, whatever the version). */
  watches(group: string, plural: string): boolean {
    return this.filter.resource.group === group && this.filter.resource.plural === plural;
  }

  send(type: WatchEventType | 'BOOKMARK', object: unknown): void {
    if (this.closed || this.stalled) return;
    const version = Number((object as KubeObject).metadata?.resourceVersion);
    if (Number.isInteger(version)) this.lastResourceVersion = version;
    this.response.write(`${JSON.stringify({ type, object })}\n`);
  }

  /** Ends the stream with an ERROR event carrying a Status, as the server does for an expired resourceVersion. */
  fail(error: KubeError): void {
    if (this.closed) return;
    this.response.write(`${JSON.stringify({ type: 'ERROR', object: failureStatus(error) })}\n`);
    this.end();
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end();
  }

  destroy(): void {
    this.closed = true;
    this.response.destroy();
  }
}

export function expired(requested: number, oldest: number): KubeError {
  return new KubeError(410, `too old resource version: ${requested} (${oldest})`, 'Expired');
}
