/** Why a long-running command (the gateway's `serve`, the operator's `run`) was asked to stop. */
export type StopRequest =
  | { kind: 'signal'; signal: NodeJS.Signals }
  | { kind: 'parent-exited'; parentPid: number; newParentPid: number };

/**
 * SIGHUP too: a closed terminal must not kill the process before it has drained and stopped the
 * embedded PostgreSQL.
 */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];

/**
 * A repeat of the first signal this soon is the same request delivered twice, not an impatient
 * operator: Ctrl-C sends SIGINT to the whole foreground process group, and `npm start` (which runs
 * the gateway in that group) forwards the SIGINT it got to its child as well. The window allows for an
 * npm process slowed down by a busy machine; a person's second Ctrl-C usually comes later.
 */
const REPEAT_GRACE_MS = 3_000;

/**
 * Resolves with the first stop request, for a process that then drains and exits:
 *  - SIGTERM, SIGINT or SIGHUP;
 *  - its parent process exited (this process was reparented). Whoever started it (npm, a shell
 *    script, a supervisor) is gone, e.g. killed with SIGKILL, and nobody is left to stop it: it must
 *    not keep serving unattended. Only a change of parent counts, so a process started by PID 1
 *    (systemd) or running as PID 1 (a container) is not affected.
 * Installed early (before boot), so a signal during a slow boot is not lost: the process finishes
 * booting, then stops. Another signal after the first means "now": exit at once, with code 1.
 */
export function waitForStopRequest(options: { parentPollMs?: number } = {}): Promise<StopRequest> {
  const parentPid = process.ppid;
  return new Promise((resolve) => {
    const poll = setInterval(() => {
      const newParentPid = process.ppid;
      if (newParentPid !== parentPid) stop({ kind: 'parent-exited', parentPid, newParentPid });
    }, options.parentPollMs ?? 1_000);
    // The poll alone must never keep a finished process alive.
    poll.unref();
    const onSignal = (signal: NodeJS.Signals): void => stop({ kind: 'signal', signal });
    const stop = (request: StopRequest): void => {
      clearInterval(poll);
      // The next handlers first: removing a signal's last listener restores the default action, and a
      // signal arriving in that gap (npm forwards the Ctrl-C its group already got) would kill the process
      // before it has drained or stopped its database.
      exitOnNextSignal(request.kind === 'signal' ? request.signal : undefined);
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      resolve(request);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  });
}

/** A human-readable reason for the log line that announces the shutdown. */
export function describeStopRequest(request: StopRequest): string {
  return request.kind === 'signal'
    ? `received ${request.signal}`
    : `parent process ${request.parentPid} exited (now reparented to ${request.newParentPid}); nobody is left to stop this process`;
}

function exitOnNextSignal(first: NodeJS.Signals | undefined): void {
  const since = performance.now();
  const again = (signal: NodeJS.Signals): void => {
    if (signal === first && performance.now() - since < REPEAT_GRACE_MS) return;
    process.exit(1);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, again);
}
