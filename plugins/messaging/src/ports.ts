import type { ChatModel } from './llm/chat-model.ts';
import type { ProcessingPorts } from './queue/processor.ts';

/**
 * Interim wiring of the classifier and the conversation engine (replaced when they land): every message
 * is the default tier and gets the generic answer.
 */
export function createProcessingPorts(_model: ChatModel): ProcessingPorts {
  return {
    classify: () =>
      Promise.resolve({ intent: 'generalInfo', tier: 4, score: 0, margin: null, evidence: null }),
    step: (input) =>
      Promise.resolve({
        session: input.session,
        result: { intent: 'generalInfo', entities: {} },
        replies: [{ template: 'generalInfo', params: {} }],
        leadPatch: {},
        language: 'id',
      }),
    render: () => 'Terima kasih, pesan Anda sudah kami terima.',
  };
}
