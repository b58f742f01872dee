/** One access-log entry: fixed fields, all safe to log (no headers, no query string, no body). */
export interface AccessEntry {
  reqId: string;
  method: string;
  route: string;
  /** The raw path, only for requests that matched no route. */
  path?: string | undefined;
  status: number;
  durationMs: number;
  aborted?: boolean;
}

export interface AccessLog {
  readonly enabled: boolean;
  write(entry: Readonly<AccessEntry>): void;
}

/** pino's numeric level for `info`, so access lines read like every other log line. */
const INFO = 30;

/**
 * The access log: one line per request, in the same JSON shape as the pino lines around it
 * (`level`, `time`, `service`, fields, `msg`), written to the same sink. Formatted here rather than by
 * pino because its fields are fixed: pino's generic serialisation is the costliest part of a request on
 * the gateway's fastest routes (docs/adr/0003-pipeline-as-compiled-chain.md). Every string a client can
 * influence goes through JSON.stringify.
 */
export function createAccessLog(options: {
  sink: { write(line: string): unknown };
  enabled: boolean;
  now?: () => number;
}): AccessLog {
  const now = options.now ?? Date.now;
  return {
    enabled: options.enabled,
    write(entry) {
      options.sink.write(
        `{"level":${INFO},"time":${now()},"service":"gatehouse","reqId":${JSON.stringify(entry.reqId)},"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(entry.route)}` +
          (entry.path === undefined ? '' : `,"path":${JSON.stringify(entry.path)}`) +
          `,"status":${entry.status},"durationMs":${entry.durationMs}` +
          (entry.aborted ? ',"aborted":true' : '') +
          ',"msg":"request"}\n',
      );
    },
  };
}
