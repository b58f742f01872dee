/**
 * An Indonesian mobile number after the country code: 8, an operator digit, then 7 to 10 digits
 * (0812-345-678 to 0812-3456-78901, i.e. 10 to 13 digits when written with the leading 0).
 */
const MOBILE_NATIONAL = /^8[1-9]\d{7,10}$/;

/** Digits with the separators people type (spaces, dots, dashes, brackets), optionally after + or 00. */
const PHONE_CANDIDATE = /(?<![\p{L}\p{N}+])\(?(?:\+|00)?\s?\(?\d[\d\s().-]{6,24}\d(?!\p{N})/gu;

/**
 * Normalises an Indonesian mobile number to the 62-prefixed form a lead's phone is stored in (README,
 * "Extraction"): 0812..., +62 812..., +62 (0)812..., 0062 812..., 62812... all become 62812.... Returns null
 * for anything else: landlines, foreign numbers, too short or too long.
 */
export function normalisePhone(raw: string): string | null {
  const compact = raw.trim().replace(/[\s().-]/g, '');
  if (!/^\+?\d+$/.test(compact)) return null;
  const digits = compact.replace('+', '');
  let national: string;
  if (compact.startsWith('+')) {
    if (!digits.startsWith('62')) return null;
    national = digits.slice(2);
  } else if (digits.startsWith('0062')) {
    national = digits.slice(4);
  } else if (digits.startsWith('62')) {
    national = digits.slice(2);
  } else if (digits.startsWith('0')) {
    national = digits.slice(1);
  } else {
    return null;
  }
  // "+62 0812..." is a common way of writing the trunk prefix after the country code.
  if (national.startsWith('0')) national = national.slice(1);
  return MOBILE_NATIONAL.test(national) ? `62${national}` : null;
}

export interface PhoneScan {
  /** Distinct valid numbers, normalised, in order of appearance. */
  phones: string[];
  /** The text with the valid numbers replaced by a comma (a clause break for the name extractor). */
  rest: string;
}

/**
 * Finds the Indonesian mobile numbers in a message. A digit run that is not a number as a whole
 * ("lulus 2024 081234567890") is retried on its space-separated parts, longest first.
 */
export function scanPhones(text: string): PhoneScan {
  const phones = new Set<string>();
  const rest = text.replace(PHONE_CANDIDATE, (candidate) => {
    const phone = normalisePhone(candidate) ?? bestPart(candidate);
    if (!phone) return candidate;
    phones.add(phone);
    return ' , ';
  });
  return { phones: [...phones], rest };
}

/**
 * Digits a number written any accepted way can have: 0 + 9 national digits at least, 0062 + 0 + 12
 * national digits at most. Parts outside this range are not tried, so a candidate of single digits
 * separated by spaces costs a few calls of `normalisePhone`, not one per pair of its groups.
 */
const MIN_DIGITS = 10;
const MAX_DIGITS = 17;

function bestPart(candidate: string): string | null {
  const groups = candidate.trim().split(/\s+/);
  // digitsBefore[i]: digits in groups[0..i-1].
  const digitsBefore = [0];
  for (const group of groups) digitsBefore.push((digitsBefore.at(-1) ?? 0) + countDigits(group));
  for (let length = groups.length - 1; length >= 1; length--) {
    for (let start = 0; start + length <= groups.length; start++) {
      const digits = (digitsBefore[start + length] ?? 0) - (digitsBefore[start] ?? 0);
      if (digits < MIN_DIGITS || digits > MAX_DIGITS) continue;
      const phone = normalisePhone(groups.slice(start, start + length).join(''));
      if (phone) return phone;
    }
  }
  return null;
}

function countDigits(text: string): number {
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x30 && code <= 0x39) digits++;
  }
  return digits;
}
