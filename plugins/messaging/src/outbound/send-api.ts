import http from 'node:http';
import https from 'node:https';
import { isCleanIdentifier } from '../../../../gateway/src/plugin-api.ts';
import { trimEndChars } from '../domain/text.ts';

/**
 * What one send did: accepted with the provider's message id, or an error; `code` is the provider's error
 * code when its answer named one (131047: the 24-hour window is closed, README "Follow-ups").
 */
export type SendOutcome = { providerId: string } | { error: string; code?: number };

/** The send API as the sender uses it. */
export interface SendApiClient {
  /** Posts one request for a business number; never throws: every failure is an outcome. */
  send(phoneNumberId: string, payload: Record<string, unknown>): Promise<SendOutcome>;
  /** Closes the kept-alive connections (after the last send). */
  close(): void;
}

/** The most of an answer read; a longer one is no send API's answer. */
const MAX_ANSWER_BYTES = 64 * 1024;

/** A refused send: its status, and the provider's error code when the answer names one. */
function refused(status: number, body: Buffer): SendOutcome {
  let code: unknown;
  try {
    code = (JSON.parse(body.toString('utf8')) as { error?: { code?: unknown } } | null)?.error?.code;
  } catch {
    code = undefined;
  }
  return Number.isSafeInteger(code)
    ? { error: `send API answered ${status} (error ${code as number})`, code: code as number }
    : { error: `send API answered ${status}` };
}

/** Connections kept open to the send API: one per reply in flight, up to this many. */
const MAX_SOCKETS = 64;

/**
 * The provider's send API (Graph-compatible, `POST {base}/{phone_number_id}/messages` with a bearer token;
 * README, "How a message flows"). Requests go through a keep-alive agent of node:http(s): a reply costs a
 * request on an open connection, without the stream machinery of `fetch` (a third of the gateway's CPU per
 * message in `npm run bench:messaging` went to fetch's web streams). Never throws: every failure is an
 * outcome.
 */
export function createSendApiClient(options: {
  baseUrl: string;
  token: string | undefined;
  timeoutMs: number;
}): SendApiClient {
  const base = new URL(`${trimEndChars(options.baseUrl, '/')}/`);
  const transport = base.protocol === 'https:' ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });

  return {
    send(phoneNumberId: string, payload: Record<string, unknown>): Promise<SendOutcome> {
      const body = JSON.stringify(payload);
      return new Promise<SendOutcome>((resolve) => {
        const req = transport.request(
          new URL(`${encodeURIComponent(phoneNumberId)}/messages`, base),
          {
            method: 'POST',
            agent,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
            },
          },
          (res) => {
            const status = res.statusCode ?? 0;
            const chunks: Buffer[] = [];
            let size = 0;
            res.on('data', (chunk: Buffer) => {
              size += chunk.length;
              if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
            });
            res.on('error', (err) => resolve({ error: `send API unreachable: ${err.message}` }));
            if (status < 200 || status > 299) {
              res.on('end', () => resolve(refused(status, Buffer.concat(chunks))));
              return;
            }
            res.on('end', () => {
              let id: unknown;
              try {
                const answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
                  messages?: Array<{ id?: unknown }>;
                } | null;
                id = answer?.messages?.[0]?.id;
              } catch {
                id = undefined;
              }
              // The id is stored and matched by status updates: like an inbound one, clean text, bounded.
              resolve(
                typeof id === 'string' && id.length <= 200 && isCleanIdentifier(id)
                  ? { providerId: id }
                  : { error: 'send API answered without a valid message id' },
              );
            });
          },
        );
        // One timer bounds the whole exchange: waiting for a socket, connecting, sending and reading.
        const timer = setTimeout(() => {
          req.destroy(new Error('timeout'));
          resolve({ error: 'send API timed out' });
        }, options.timeoutMs);
        req.on('close', () => clearTimeout(timer));
        req.on('error', (err) => resolve({ error: `send API unreachable: ${err.message}` }));
        req.end(body);
      });
    },
    close(): void {
      agent.destroy();
    },
  };
}
