/**
 * Resolves with the first SIGTERM or SIGINT, for a process that then drains and exits (the gateway's
 * `serve`, the operator's `run`). A second signal while draining means "now": exit without waiting.
 */
export function waitForSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals): void => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.once(signal, () => process.exit(1));
      resolve(signal);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}
