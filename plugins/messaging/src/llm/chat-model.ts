import { trimEndChars } from '../domain/text.ts';
import type { z } from 'zod';

/** Why a model call produced nothing usable; every one falls through to the next tier. */
export type ModelFailure =
  'disabled' | 'timeout' | 'http_error' | 'invalid_json' | 'invalid_output' | 'network';

export type ModelResult<T> = { ok: true; value: T } | { ok: false; reason: ModelFailure };

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatModel {
  readonly model: string | null;
  /** Asks for a JSON object and validates it with `schema`; never throws. */
  completeJson<T>(messages: readonly ChatMessage[], schema: z.ZodType<T>): Promise<ModelResult<T>>;
}

/**
 * A client for an OpenAI-compatible chat-completions endpoint (`LLM_BASE_URL`, `LLM_MODEL`, `LLM_API_KEY`),
 * its output validated with zod, bounded by `LLM_TIMEOUT_MS`; a model unset, slow or invalid hands over to
 * the next tier (plugins/messaging/README.md, "Intent classification"). It never throws: every failure is a
 * `ModelResult` the caller falls through on.
 */
export function createChatModel(options: {
  baseUrl: string | undefined;
  model: string | undefined;
  apiKey: string | undefined;
  timeoutMs: number;
  fetch?: typeof fetch;
}): ChatModel {
  const doFetch = options.fetch ?? fetch;
  const { baseUrl, model } = options;
  if (!baseUrl || !model) {
    return { model: null, completeJson: () => Promise.resolve({ ok: false, reason: 'disabled' }) };
  }
  const url = `${trimEndChars(baseUrl, '/')}/chat/completions`;
  return {
    model,
    async completeJson(messages, schema) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
          },
          body: JSON.stringify({
            model,
            messages,
            temperature: 0,
            response_format: { type: 'json_object' },
          }),
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (err) {
        const name = (err as Error).name;
        return {
          ok: false,
          reason: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network',
        };
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => undefined);
        return { ok: false, reason: 'http_error' };
      }
      let content: unknown;
      try {
        const body = (await res.json()) as { choices?: Array<{ message?: { content?: unknown } }> };
        const text = body.choices?.[0]?.message?.content;
        if (typeof text !== 'string') return { ok: false, reason: 'invalid_output' };
        content = JSON.parse(text);
      } catch (err) {
        const name = (err as Error).name;
        if (name === 'TimeoutError' || name === 'AbortError') return { ok: false, reason: 'timeout' };
        return { ok: false, reason: 'invalid_json' };
      }
      const parsed = schema.safeParse(content);
      return parsed.success ? { ok: true, value: parsed.data } : { ok: false, reason: 'invalid_output' };
    },
  };
}
