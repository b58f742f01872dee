import { randomBytes } from 'node:crypto';
import type { CoreV1Event } from '@kubernetes/client-node';
import { API_VERSION, KIND } from '../api/names.ts';

/** What an Event on the AuthConfig says: one for each change (operator/README.md, "Reconciliation", step 8). */
export interface EventNote {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface InvolvedObject {
  namespace: string;
  name: string;
  uid?: string;
  resourceVersion?: string;
}

/** A core/v1 Event about the AuthConfig, named as client-go names them (`<object>.<random hex>`). */
export function eventFor(object: InvolvedObject, note: EventNote, component: string, now: Date): CoreV1Event {
  return {
    metadata: { name: `${object.name}.${randomBytes(8).toString('hex')}`, namespace: object.namespace },
    involvedObject: {
      apiVersion: API_VERSION,
      kind: KIND,
      name: object.name,
      namespace: object.namespace,
      ...(object.uid !== undefined ? { uid: object.uid } : {}),
      ...(object.resourceVersion !== undefined ? { resourceVersion: object.resourceVersion } : {}),
    },
    type: note.type,
    reason: note.reason,
    message: note.message,
    source: { component },
    reportingComponent: component,
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
  };
}
