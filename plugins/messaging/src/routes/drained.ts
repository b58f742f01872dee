import type { Response } from 'express';

/**
 * Resolves once the response's buffer has drained or its client went away: what a streamed export waits for
 * after a `write` that returned false, so a slow reader holds back the next query instead of filling memory.
 */
export function drainedOrClosed(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
