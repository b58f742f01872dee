import type { RequestHandler } from 'express';
import { BootError } from '../boot-error.ts';
import type { SessionVerifier } from '../gate/session-verifier.ts';
import type { HealthReport, PipelineSlot, PluginHooks, ReadyInfo } from '../plugin/types.ts';

/** Collects what the core and each plugin register through `ctx.hooks`, for the boot sequence to use. */
export interface HookCollector extends PluginHooks {
  readonly slots: Map<PipelineSlot, RequestHandler[]>;
  readonly healthChecks: Map<string, () => HealthReport | Promise<HealthReport>>;
  readonly ready: Array<(info: ReadyInfo) => void | Promise<void>>;
  readonly shutdown: Array<() => void | Promise<void>>;
  readonly close: Array<() => void | Promise<void>>;
  forPlugin(id: string): PluginHooks;
}

export function createHookCollector(verifier: SessionVerifier): HookCollector {
  const slots = new Map<PipelineSlot, RequestHandler[]>();
  const healthChecks = new Map<string, () => HealthReport | Promise<HealthReport>>();
  const ready: HookCollector['ready'] = [];
  const shutdown: HookCollector['shutdown'] = [];
  const close: HookCollector['close'] = [];
  let resolverOwner: string | null = null;
  const forPlugin = (id: string): PluginHooks => ({
    pipeline(slot, handler) {
      const list = slots.get(slot) ?? [];
      list.push(handler);
      slots.set(slot, list);
    },
    health(check) {
      healthChecks.set(id, check);
    },
    onReady(fn) {
      ready.push(fn);
    },
    onShutdown(fn) {
      shutdown.push(fn);
    },
    onClose(fn) {
      close.push(fn);
    },
    sessionCheck(check) {
      verifier.addCheck(check);
    },
    sessionResolver(resolver) {
      // Two sources of truth for one identity would make authorization depend on registration order.
      if (resolverOwner !== null) {
        throw new BootError([
          `plugin ${id}: ctx.hooks.sessionResolver: plugin ${resolverOwner} already resolves session identities (at most one plugin may)`,
        ]);
      }
      resolverOwner = id;
      verifier.setResolver(resolver);
    },
  });
  return { ...forPlugin('core'), slots, healthChecks, ready, shutdown, close, forPlugin };
}
