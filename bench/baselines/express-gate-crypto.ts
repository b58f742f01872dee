// Floor for the gated route (ADR 0004): bare Express plus only the crypto the gate must do per request, the
// layer-1 HMAC-SHA256 check and layer 2's cache key (SHA-256 of the session token, looked up in a Map). No
// logging, metrics, security headers, audit or LRU bookkeeping. Its ratio to bare Express is what the crypto
// alone costs on an Express stack: a gateway doing that work plus the rest can only pass 1.0× by being
// cheaper than Express elsewhere by at least as much.
import { hash } from 'node:crypto';
import express from 'express';
import { prepareSecrets, SIGNATURE_HEADER, verifySignature } from '../../gateway/src/gate/hmac.ts';
import { SESSION_HEADER } from '../../gateway/src/gate/gate.ts';

const body = JSON.parse(process.env.BENCH_BODY ?? '{"hello":"world"}') as unknown;
const keys = prepareSecrets([process.env.INTERNAL_API_SECRET ?? '']);
const sessions = new Map<string, { sub: string }>();
const app = express();
app.get('/ready', (_req, res) => {
  res.json({ ready: true });
});
app.use((req, res, next) => {
  const signed = verifySignature(
    req.headers[SIGNATURE_HEADER],
    { method: req.method, url: req.originalUrl, body: undefined },
    keys,
    Math.floor(Date.now() / 1000),
  );
  const token = req.headers[SESSION_HEADER];
  if (!signed.ok || typeof token !== 'string') return void res.status(401).end();
  const key = hash('sha256', token, 'base64');
  // The first request of a token fills the cache, as the gate's decrypt would; the rest are hits.
  if (!sessions.has(key)) sessions.set(key, { sub: 'bench-user' });
  next();
});
app.get('/api/v1/gate/identity', (_req, res) => {
  res.json(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
