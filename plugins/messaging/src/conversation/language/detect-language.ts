import { ruleText } from '../../domain/text.ts';
import type { Language } from '../types.ts';

/** Indonesian function words and chat words that English does not use. */
const INDONESIAN = new Set(
  `
  saya aku gue gua kami kita anda kamu dia mereka ini itu yang dan atau dengan untuk dari di ke pada dalam
  tidak tak nggak gak ga enggak bukan belum sudah udah mau ingin pengen bisa boleh apa apakah berapa bagaimana
  gimana kapan dimana mana siapa kenapa mengapa ada adakah juga saja aja sih dong deh kok ya iya nya
  halo hallo hai selamat pagi siang sore malam terima kasih makasih tolong mohon maaf permisi kak min
  nama daftar mendaftar pendaftaran biaya kuliah kampus jurusan prodi jadwal lokasi alamat info tanya
  bertanya berbicara bicara dengan orang staf admin kunjungi berkunjung lihat
  `
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/** English function words and chat words that Indonesian does not use. */
const ENGLISH = new Set(
  `
  i i'm im me my mine you your we our they the a an and or of to for from in on at with is are was were be
  been do does did not no yes what how when where which who why can could would should will please thanks
  thank hello hey good morning afternoon evening want like register apply enroll name email phone number
  fees fee cost tuition programs programmes courses major schedule location address campus visit speak
  talk person human agent staff about much many there here this that
  `
    .split(/\s+/)
    .filter((word) => word.length > 0),
);

/**
 * Detects Indonesian or English from the message's function words (replies are in Indonesian, with an English
 * fallback; README, "Language and reply templates"). A message with no cue either way, or as many of each (a
 * bare name, an email, "ok"), keeps the conversation's previous language, or Indonesian for a new
 * conversation.
 */
export function detectLanguage(text: string | null, previous: Language | undefined): Language {
  let indonesian = 0;
  let english = 0;
  for (const word of ruleText(text ?? '')
    .toLowerCase()
    .split(/[^\p{L}'’]+/u)) {
    if (word.length === 0) continue;
    const plain = word.replace(/’/g, "'");
    if (INDONESIAN.has(plain)) indonesian++;
    if (ENGLISH.has(plain)) english++;
  }
  if (indonesian > english) return 'id';
  if (english > indonesian) return 'en';
  return previous ?? 'id';
}
