import pino, { type DestinationStream, type Logger } from 'pino';
import { createAccessLog, type AccessLog } from './http/access-log.ts';
import { LineSink } from './log-sink.ts';

export type { Logger } from 'pino';

export interface Loggers {
  /** The application logger (pino), with redaction as a safety net. */
  logger: Logger;
  /** One line per request with fixed, safe fields; same sink, same JSON shape. */
  accessLog: AccessLog;
  /** Lines the sink dropped because its reader fell too far behind (exported as a metric). */
  droppedLines: () => number;
}

/**
 * Structured JSON logs, one object a line, timestamps in epoch milliseconds (`time`), numeric pino levels.
 * Redaction is a safety net for the rule "no secret, password, code or token in logs": code should not
 * log such values in the first place.
 */
export function createLoggers(options: { level: string; destination?: DestinationStream }): Loggers {
  const sink = options.destination ?? new LineSink();
  const logger = pino(
    {
      level: options.level,
      base: { service: 'gatehouse' },
      redact: {
        paths: [
          '*.password',
          '*.token',
          '*.secret',
          '*.authorization',
          '*.cookie',
          '*.apiKey',
          'password',
          'token',
          'secret',
        ],
        censor: '[redacted]',
      },
    },
    sink,
  );
  return {
    logger,
    accessLog: createAccessLog({ sink, enabled: logger.isLevelEnabled('info') }),
    droppedLines: () => (sink instanceof LineSink ? sink.droppedLines : 0),
  };
}
