import type { Registry } from 'prom-client';
import type { AuditWriter } from '../audit/audit-writer.ts';
import type { Clock } from '../clock.ts';
import { startFailureAudit } from '../gate/failure-audit.ts';
import { createGate } from '../gate/gate.ts';
import { createGateMetrics } from '../gate/gate-metrics.ts';
import type { SessionVerifier } from '../gate/session-verifier.ts';
import type { Settings } from '../settings.ts';
import type { HookCollector } from './hooks.ts';

/**
 * The API gate (ADR 0004) fills pipeline slots 5-7 before any plugin registers, so plugin slot handlers
 * run after it. Collapsed failure summaries are swept every 5 s and flushed at shutdown.
 */
export function installGate(deps: {
  settings: Settings;
  verifier: SessionVerifier;
  audit: AuditWriter;
  registry: Registry;
  clock: Clock;
  hooks: HookCollector;
}): void {
  const failures = startFailureAudit({
    audit: deps.audit,
    clock: deps.clock,
    onClose: (fn) => deps.hooks.onClose(fn),
  });
  const gate = createGate({
    config: deps.settings.gate,
    verifier: deps.verifier,
    failures,
    metrics: createGateMetrics(deps.registry, deps.settings.gate.mode),
    audit: deps.audit,
    clock: deps.clock,
  });
  deps.hooks.pipeline('gate.layer1', gate.layer1);
  deps.hooks.pipeline('gate.layer2', gate.layer2);
  deps.hooks.pipeline('audit.sensitive', gate.sensitiveAudit);
}
