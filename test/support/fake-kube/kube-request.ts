/**
 * A raw JSON request to the API server a KubeConfig points at (the fake or a real cluster), with the
 * KubeConfig's credentials and TLS settings. The generated clients re-serialise bodies through their models,
 * which drops the `x-kubernetes-*` keys of a CRD's schema; documents sent through here arrive as written.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';

export interface KubeResponse {
  status: number;
  body: unknown;
  headers: IncomingMessage['headers'];
}

/** Sends `body` as JSON (or as `contentType`) and parses the JSON answer; never throws on an HTTP status. */
export async function kubeRequest(
  kc: KubeConfig,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<KubeResponse> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new Error('the kubeconfig has no current cluster');
  const url = new URL(path, cluster.server.endsWith('/') ? cluster.server : `${cluster.server}/`);
  const options: RequestOptions = { method, headers: { accept: 'application/json' } };
  await kc.applyToHTTPSOptions(options);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  if (payload !== undefined) options.headers = { ...options.headers, 'content-type': contentType };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? undefined : JSON.parse(text);
        } catch {
          // Not JSON (a proxy's error page, say): keep the text.
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}
