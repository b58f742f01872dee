import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger } from 'pino';

/**
 * Structured JSON logs, one object a line (pino). Redaction is a safety net for the rule "no secret,
 * password, code or token in logs": code should not log such values in the first place.
 */
export function createLogger(options: { level: string; destination?: DestinationStream }): Logger {
  const destination =
    options.destination ??
    // Asynchronous writes keep logging off the request's critical path; pino flushes on exit.
    pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: options.level,
      base: { service: 'gatehouse' },
      timestamp: pino.stdTimeFunctions.isoTime,
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
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
