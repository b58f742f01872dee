// Ceiling: node:http with no framework, writing the same JSON body.
import { createServer } from 'node:http';

const body = process.env.BENCH_BODY ?? '{"hello":"world"}';
const server = createServer((_req, res) => {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.end(body);
});
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
