import type { Intent } from '../../classifier/types.ts';
import { runCapture } from '../capture/capture-flow.ts';
import * as answers from './answers.ts';
import type { Handler } from './types.ts';

/** Registers or continues lead capture (asks for what is missing). */
export const wantRegister: Handler = (context) => runCapture(context, 'wantRegister');
/** Takes the name, email or phone the message gives, or answers a capture prompt. */
export const sharePersonalInfo: Handler = (context) => runCapture(context, 'sharePersonalInfo');

/** One named handler per intent, named after it (`wantRegister`, `askFees`, ...). */
export const HANDLERS: Readonly<Record<Intent, Handler>> = {
  greeting: answers.greeting,
  wantRegister,
  wantVisitCampus: answers.wantVisitCampus,
  sharePersonalInfo,
  askHuman: answers.askHuman,
  askFees: answers.askFees,
  askPrograms: answers.askPrograms,
  askSchedule: answers.askSchedule,
  askLocation: answers.askLocation,
  thanks: answers.thanks,
  generalInfo: answers.generalInfo,
};
