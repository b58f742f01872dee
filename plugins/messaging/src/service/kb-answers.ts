import { z } from 'zod';
import type { Database } from '../../../../gateway/src/plugin-api.ts';
import type { KbLookup } from '../conversation/types.ts';
import type { ChatMessage, ChatModel } from '../llm/chat-model.ts';
import { kbChunkStore } from '../store/kb-chunk-store.ts';
import { createKbRetrieval, KB_ANSWER_THRESHOLD, type RetrievedChunk } from './kb-retrieval.ts';

/** Chunks retrieval hands the bot for one question (and the model, as context). */
const CONTEXT_CHUNKS = 3;
/** The longest answer the bot sends from the knowledge base (a WhatsApp text holds 4,096). */
const ANSWER_MAX_CHARS = 1_500;

const modelAnswerSchema = z.object({ answer: z.string().trim().min(1).max(ANSWER_MAX_CHARS) });

/**
 * The knowledge base as the `generalInfo` handler sees it (README, "Knowledge base", "How the bot answers"):
 * the best published chunks for the question; when the best passes KB_ANSWER_THRESHOLD the answer is that
 * chunk (of the conversation's language when one of those passes too) or, with the model tier configured, the
 * model's answer written from the top chunks. What was found is returned whether or not it answered, so the
 * answer records it.
 */
export function createKbAnswerer(deps: {
  db: Database;
  model: ChatModel;
}): (text: string, language: 'id' | 'en') => Promise<KbLookup> {
  const retrieval = createKbRetrieval(deps);
  return async (text, language) => {
    const [chunks, kbVersion] = await Promise.all([
      retrieval.search(text, { limit: CONTEXT_CHUNKS }),
      kbChunkStore.version(deps.db),
    ]);
    const passing = chunks.filter((c) => c.score >= KB_ANSWER_THRESHOLD);
    const best = passing.find((c) => c.language === language) ?? passing[0];
    const answer = best === undefined ? null : await composeAnswer(deps.model, text, best, passing, language);
    return {
      answer,
      chunks: chunks.map((c) => ({ id: c.chunkId, score: c.score })),
      kbVersion,
    };
  };
}

async function composeAnswer(
  model: ChatModel,
  question: string,
  best: RetrievedChunk,
  passing: readonly RetrievedChunk[],
  language: 'id' | 'en',
): Promise<string> {
  const fallback = best.text.slice(0, ANSWER_MAX_CHARS);
  if (model.model === null) return fallback;
  const context = passing.map((c, i) => `[${i + 1}] ${c.title}\n${c.text}`).join('\n\n');
  const messages: ChatMessage[] = [
    {
      role: 'system',
      content:
        'You answer questions for a university admissions office using ONLY the numbered knowledge-base ' +
        `excerpts below. Answer in ${language === 'id' ? 'Indonesian' : 'English'}, briefly. If the excerpts ` +
        'do not answer the question, answer with the most relevant excerpt. Reply as JSON {"answer": "..."}.' +
        `\n\n${context}`,
    },
    { role: 'user', content: question.slice(0, 1_000) },
  ];
  const result = await model.completeJson(messages, modelAnswerSchema);
  return result.ok ? result.value.answer : fallback;
}
