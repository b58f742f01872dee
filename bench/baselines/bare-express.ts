// Baseline: a bare Express 5 app answering GET / with res.json, Express defaults untouched.
import express from 'express';

const body = JSON.parse(process.env.BENCH_BODY ?? '{"hello":"world"}') as unknown;
const app = express();
app.get('/', (_req, res) => {
  res.json(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
