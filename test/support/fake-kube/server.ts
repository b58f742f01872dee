/**
 * An in-process fake Kubernetes API server on 127.0.0.1 (test/support/fake-kube/README.md), as strict as a real
 * one wherever the operator relies on it: the real `@kubernetes/client-node` talks HTTP to it. Fault controls let
 * tests prove the operator converges through 409s, 500s, 410 Gone and silently stalled watches
 * (docs/adr/0007-operator.md, "Requirements").
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml } from 'yaml';
import { isCrdDocument, permissiveCrd, type CrdDocument } from './crd-document.ts';
import { CRD_RESOURCE, CrdLifecycle } from './crds.ts';
import { apiVersionOf, BUILTIN_RESOURCES, ResourceRegistry } from './resources.ts';
import { discoveryDocument } from './discovery.ts';
import { answerOpenApiV2, openApiDocument, patchMediaTypes } from './openapi.ts';
import { NAMESPACE_RESOURCE, NamespaceLifecycle } from './namespaces.ts';
import { parseResourcePath, type ResourceRequest } from './routes.ts';
import { fieldMatcher, labelMatcher } from './selectors.ts';
import { failureStatus, KubeError, successStatus } from './status.ts';
import { ObjectStore, type PatchKind } from './store.ts';
import type {
  CustomResourceOptions,
  FieldValidation,
  JsonObject,
  RequestRecord,
  WriteContext,
} from './types.ts';
import { expired, WatchStream } from './watch.ts';

export interface FakeKubeOptions {
  /**
   * A custom resource to serve from the start: a CRD document (installed as `kubectl apply` would, validated,
   * its objects validated against its schema), or just names (a namespaced type with a status subresource whose
   * schema keeps any field, so objects are stored as sent).
   */
  customResource?: CustomResourceOptions | CrdDocument;
  /** More CRD documents to install at start. */
  crds?: readonly unknown[];
  /** The bearer token requests must carry; others get 401. */
  token?: string;
  /**
   * Also accept requests that carry no credentials at all (a wrong token is still 401), as a server that
   * authorises anonymous requests does. kubectl needs it: it never sends credentials to an `http://` server.
   */
  anonymous?: boolean;
  /** How many changes are retained for watches to resume from; older resourceVersions get 410 Gone. */
  watchWindow?: number;
}

/** Which requests an injected fault hits. `writes` is POST, PUT, PATCH and DELETE. */
export type FaultTarget = 'writes' | 'reads' | 'all';

export interface FaultOptions {
  on?: FaultTarget;
  reason?: string;
  message?: string;
}

interface Fault {
  remaining: number;
  error: KubeError;
  on: FaultTarget;
}

const PATCH_KINDS: Record<string, PatchKind> = {
  'application/merge-patch+json': 'merge',
  'application/strategic-merge-patch+json': 'strategic',
  'application/json-patch+json': 'json',
  'application/apply-patch+yaml': 'apply',
};

/** What a request is answered with: a status code, a body, and the warnings of a write. */
type Answer = { code: number; body: unknown; warnings?: string[] };

export class FakeKube {
  readonly url: string;
  readonly token: string;
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
  private readonly server: Server;
  private readonly watches = new Set<WatchStream>();
  private readonly log: RequestRecord[] = [];
  private readonly faults: Fault[] = [];
  private readonly namespaces: NamespaceLifecycle;
  private readonly anonymous: boolean;
  private readonly crds: CrdLifecycle;

  private constructor(server: Server, options: FakeKubeOptions) {
    this.server = server;
    const { port } = server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    this.token = options.token ?? 'fake-kube-token';
    this.anonymous = options.anonymous ?? false;
    this.store = new ObjectStore(options.watchWindow ?? 1000);
    this.namespaces = new NamespaceLifecycle(this.store);
    this.registry = new ResourceRegistry([...BUILTIN_RESOURCES, CRD_RESOURCE]);
    this.store.subscribe((event) => {
      for (const watch of this.watches) watch.deliver(event);
    });
    this.crds = new CrdLifecycle(this.store, this.registry, (group, plural) => {
      // A real server ends the watches on a type whose CRD is gone.
      for (const watch of this.watches) if (watch.watches(group, plural)) watch.end();
    });
    const custom = options.customResource;
    if (custom) this.crds.install(isCrdDocument(custom) ? custom : permissiveCrd(custom));
    for (const document of options.crds ?? []) this.crds.install(document);
  }

  /** Starts the server on an ephemeral loopback port. */
  static async start(options: FakeKubeOptions = {}): Promise<FakeKube> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    let fake: FakeKube;
    try {
      fake = new FakeKube(server, options);
    } catch (error) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw error;
    }
    server.on('request', (req, res) => fake.handle(req, res));
    await fake.crds.settle();
    return fake;
  }

  /** A KubeConfig for the real client, loaded from options as a kubeconfig file would be. */
  kubeConfig(namespace = 'default'): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'fake', token: this.token }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake', namespace }],
      currentContext: 'fake',
    });
    return kc;
  }

  /** The next `count` matching requests fail with `code` and a Status body (e.g. 500 InternalError, 409 Conflict). */
  failNext(count: number, code: number, options: FaultOptions = {}): void {
    const message = options.message ?? `injected fault (${code})`;
    this.faults.push({
      remaining: count,
      error: new KubeError(code, message, options.reason),
      on: options.on ?? 'writes',
    });
  }

  /** Sends 410 Gone to every open watch and compacts the window, so resuming from an old resourceVersion is 410 too. */
  expireWatches(): number {
    const open = [...this.watches].filter((w) => !w.closed);
    this.store.compact();
    for (const watch of open) watch.fail(expired(watch.lastResourceVersion, this.store.oldestResumable));
    return open.length;
  }

  /**
   * Namespaces deleted from now on stay Terminating (creates in them refused with 403) until
   * `releaseNamespaces()`: the namespace controller of a real cluster removes their contents later.
   */
  holdNamespaces(): void {
    this.namespaces.hold();
  }

  releaseNamespaces(): void {
    this.namespaces.release();
  }

  /** Open watches stay connected but receive nothing more; returns how many were stalled. */
  stallWatches(): number {
    const open = [...this.watches].filter((w) => !w.closed && !w.stalled);
    for (const watch of open) watch.stalled = true;
    return open.length;
  }

  /** Watches currently connected (stalled ones included). */
  get openWatches(): number {
    return [...this.watches].filter((w) => !w.closed).length;
  }

  /** Every request answered so far, oldest first. */
  get requests(): readonly RequestRecord[] {
    return this.log;
  }

  clearRequests(): void {
    this.log.length = 0;
  }

  async close(): Promise<void> {
    this.namespaces.release();
    await this.namespaces.settle();
    await this.crds.settle();
    for (const watch of this.watches) watch.destroy();
    this.watches.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const query = Object.fromEntries(url.searchParams);
    const record: RequestRecord = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query,
      contentType: req.headers['content-type'],
      status: 0,
      watch: query.watch === 'true' || query.watch === '1',
    };
    this.log.push(record);
    this.route(req, res, url, record).then(
      (answer) => {
        if (answer === 'streaming') {
          record.status = 200;
          return;
        }
        record.status = answer.code;
        send(res, answer.code, answer.body, answer.warnings);
      },
      (error: unknown) => {
        const kubeError = error instanceof KubeError ? error : new KubeError(500, String(error));
        record.status = kubeError.code;
        send(res, kubeError.code, failureStatus(kubeError));
      },
    );
  }

  private async route(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    record: RequestRecord,
  ): Promise<Answer | 'streaming'> {
    const credentials = req.headers.authorization;
    const anonymous = credentials === undefined && this.anonymous;
    if (!anonymous && credentials !== `Bearer ${this.token}`) throw new KubeError(401, 'Unauthorized');
    const method = record.method;
    const body =
      method === 'GET' || method === 'DELETE' ? undefined : await readBody(req, record.contentType);
    this.injectFault(method);
    // The OpenAPI v2 document is protobuf, not JSON: answered here ('streaming': the answer is written).
    if (answerOpenApiV2(url.pathname, req.headers.accept, res)) return 'streaming';
    const discovery =
      discoveryDocument(url.pathname, this.registry) ?? openApiDocument(url.pathname, this.registry);
    if (discovery) return { code: 200, body: discovery };
    const target = this.resourceRequest(url.pathname);
    const params = url.searchParams;
    const write = writeContext(params, target.subresource === 'status' ? 'status' : undefined, req);
    return target.name === undefined
      ? this.routeCollection(res, record, target, params, body, write)
      : this.routeObject(record, target, target.name, params, body, write);
  }

  /** The resource a path names, or a 404 as a real server words it (an unknown subresource included). */
  private resourceRequest(pathname: string): ResourceRequest {
    const target = parseResourcePath(pathname, this.registry);
    if (!target) throw new KubeError(404, `the server could not find the requested resource (${pathname})`);
    if (
      target.subresource !== undefined &&
      (target.subresource !== 'status' || !target.resource.statusSubresource)
    ) {
      throw new KubeError(
        404,
        `the server could not find the requested resource (subresource ${target.subresource})`,
      );
    }
    return target;
  }

  /** A collection: list, watch or create. */
  private routeCollection(
    res: ServerResponse,
    record: RequestRecord,
    target: ResourceRequest,
    params: URLSearchParams,
    body: unknown,
    write: WriteContext,
  ): Answer | 'streaming' {
    const { resource, namespace } = target;
    const method = record.method;
    if (method === 'GET' && record.watch) return this.watch(res, target, params);
    if (method === 'GET') return { code: 200, body: this.list(target, params) };
    if (method === 'POST' && (namespace !== undefined || !resource.namespaced)) {
      return {
        code: 201,
        body: this.store.create(resource, namespace ?? '', body, write),
        warnings: write.warnings,
      };
    }
    throw new KubeError(405, `the server does not allow this method on the requested resource`);
  }

  /** One named object: read, replace, patch or delete. */
  private routeObject(
    record: RequestRecord,
    target: ResourceRequest,
    name: string,
    params: URLSearchParams,
    body: unknown,
    write: WriteContext,
  ): Answer {
    const { resource } = target;
    const ns = target.namespace ?? '';
    switch (record.method) {
      case 'GET':
        return { code: 200, body: this.store.get(resource, ns, name) };
      case 'PUT':
        return {
          code: 200,
          body: this.store.replace(resource, ns, name, body, write),
          warnings: write.warnings,
        };
      case 'PATCH':
        return this.patchObject(record, target, name, params, body, write);
      case 'DELETE':
        return this.deleteObject(target, name, write.subresource);
      default:
        throw new KubeError(405, `the server does not allow this method on the requested resource`);
    }
  }

  /** A PATCH in one of the media types the resource accepts; an apply that creates the object is a 201. */
  private patchObject(
    record: RequestRecord,
    target: ResourceRequest,
    name: string,
    params: URLSearchParams,
    body: unknown,
    write: WriteContext,
  ): Answer {
    const { resource } = target;
    const mediaType = (record.contentType ?? '').split(';')[0]?.trim() ?? '';
    const kind = patchMediaTypes(resource).includes(mediaType) ? PATCH_KINDS[mediaType] : undefined;
    if (!kind)
      throw new KubeError(
        415,
        `the body of the request was in an unknown format - accepted media types include: ${patchMediaTypes(resource).join(', ')}`,
      );
    if (kind !== 'apply' && params.has('force')) {
      throw new KubeError(
        422,
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch',
      );
    }
    const existed = kind === 'apply' && this.exists(target);
    const result = this.store.patch(
      resource,
      target.namespace ?? '',
      name,
      kind,
      body,
      write,
      params.get('fieldManager') ?? undefined,
    );
    return { code: kind === 'apply' && !existed ? 201 : 200, body: result, warnings: write.warnings };
  }

  /** A DELETE: namespaces and CRDs go through their lifecycles, other objects answer as their kind does. */
  private deleteObject(target: ResourceRequest, name: string, subresource: 'status' | undefined): Answer {
    if (subresource)
      throw new KubeError(405, 'the server does not allow this method on the requested resource');
    const { resource } = target;
    if (resource === NAMESPACE_RESOURCE) return { code: 200, body: this.namespaces.delete(name) };
    if (resource === CRD_RESOURCE) return { code: 200, body: this.crds.delete(name) };
    const deleted = this.store.delete(resource, target.namespace ?? '', name);
    if (resource.returnDeletedObject) return { code: 200, body: deleted };
    return {
      code: 200,
      body: successStatus({
        name,
        group: resource.group,
        kind: resource.plural,
        uid: deleted.metadata.uid ?? '',
      }),
    };
  }

  private exists(target: ResourceRequest): boolean {
    try {
      this.store.get(target.resource, target.namespace ?? '', target.name ?? '');
      return true;
    } catch {
      return false;
    }
  }

  private injectFault(method: string): void {
    const isWrite = method !== 'GET';
    const fault = this.faults.find(
      (f) => f.remaining > 0 && (f.on === 'all' || (f.on === 'writes') === isWrite),
    );
    if (!fault) return;
    fault.remaining -= 1;
    if (fault.remaining === 0) this.faults.splice(this.faults.indexOf(fault), 1);
    throw fault.error;
  }

  private list(target: ResourceRequest, params: URLSearchParams): JsonObject {
    const labels = labelMatcher(params.get('labelSelector') ?? undefined);
    const fields = fieldMatcher(params.get('fieldSelector') ?? undefined);
    const items = this.store.list(target.resource, target.namespace).filter((o) => labels(o) && fields(o));
    return {
      kind: `${target.resource.kind}List`,
      apiVersion: apiVersionOf(target.resource),
      metadata: { resourceVersion: String(this.store.resourceVersion) },
      items,
    };
  }

  private watch(res: ServerResponse, target: ResourceRequest, params: URLSearchParams): 'streaming' {
    const labels = labelMatcher(params.get('labelSelector') ?? undefined);
    const fields = fieldMatcher(params.get('fieldSelector') ?? undefined);
    const matches = (o: Parameters<typeof labels>[0]): boolean => labels(o) && fields(o);
    const stream = new WatchStream(res, { resource: target.resource, namespace: target.namespace, matches });
    this.watches.add(stream);
    res.on('close', () => {
      stream.closed = true;
      this.watches.delete(stream);
    });
    const requested = params.get('resourceVersion');
    if (requested && requested !== '0') {
      const from = Number(requested);
      if (!Number.isInteger(from) || from < this.store.oldestResumable) {
        stream.fail(expired(from, this.store.oldestResumable));
        return 'streaming';
      }
      for (const event of this.store.changesSince(from)) stream.deliver(event);
    } else {
      // No resourceVersion (or "0"): synthetic ADDED events for the current state, then changes.
      for (const object of this.store.list(target.resource, target.namespace)) {
        if (matches(object)) stream.send('ADDED', object);
      }
    }
    const timeout = Number(params.get('timeoutSeconds') ?? 0);
    if (timeout > 0) setTimeout(() => stream.end(), timeout * 1000).unref();
    return 'streaming';
  }
}

const FIELD_VALIDATIONS: readonly FieldValidation[] = ['Strict', 'Warn', 'Ignore'];

/**
 * `?fieldValidation=` (default Warn, as on a real server), the field manager (`?fieldManager=`, else the user
 * agent up to its first `/`, cut to 128 characters), `?force=` and the warnings the write collects.
 */
function writeContext(
  params: URLSearchParams,
  subresource: 'status' | undefined,
  req: IncomingMessage,
): WriteContext {
  const asked = params.get('fieldValidation') ?? 'Warn';
  const fieldValidation = FIELD_VALIDATIONS.find((mode) => mode === asked);
  if (!fieldValidation) {
    throw new KubeError(
      400,
      `fieldValidation parameter unsupported: ${asked}, must be one of: ${FIELD_VALIDATIONS.join(', ')}`,
    );
  }
  const agent = (req.headers['user-agent'] ?? '').split('/')[0] ?? '';
  const manager = params.get('fieldManager') ?? agent.slice(0, 128);
  return { fieldValidation, subresource, warnings: [], manager, force: params.get('force') === 'true' };
}

function send(res: ServerResponse, code: number, body: unknown, warnings: string[] = []): void {
  if (res.headersSent || res.destroyed) return;
  // A real server sends each warning as `299 - "<text>"` (RFC 7234 warn-code, agent "-").
  if (warnings.length > 0)
    res.setHeader(
      'Warning',
      warnings.map((w) => `299 - ${JSON.stringify(w)}`),
    );
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req: IncomingMessage, contentType: string | undefined): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  // kubectl's typed commands (`kubectl create namespace`) send protobuf; the fake speaks JSON only.
  if (contentType?.startsWith('application/vnd.kubernetes.protobuf')) {
    throw new KubeError(
      415,
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
    );
  }
  try {
    // Apply patches are YAML (JSON is a subset of it); everything else is JSON.
    const parsed: unknown = contentType?.startsWith('application/apply-patch+yaml')
      ? parseYaml(text)
      : JSON.parse(text);
    return parsed;
  } catch (error) {
    throw new KubeError(400, `the body of the request could not be decoded: ${String(error)}`);
  }
}
