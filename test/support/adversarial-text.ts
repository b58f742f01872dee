/**
 * Message texts built to make text processing slow: long runs of one character class with a rejecting
 * character at the end, a phrase repeated thousands of times, many `@`, digit runs, mixed scripts,
 * characters that grow under NFKC or lower-casing. A quadratic step takes seconds on most of them at
 * 64 KB; a linear one, milliseconds. No imports, so benchmarks can use them too.
 */

/** `unit` repeated to exactly `length` UTF-16 code units (a pair is never cut in half). */
function fill(unit: string, length: number, tail = ''): string {
  const body = unit.repeat(Math.ceil((length - tail.length) / unit.length));
  let cut = length - tail.length;
  const last = body.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return body.slice(0, cut) + tail;
}

/** `item(0) item(1) ...` cut to `length` characters. */
function numbered(item: (i: number) => string, length: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < length; i++) {
    const part = item(i);
    parts.push(part);
    size += part.length;
  }
  return parts.join('').slice(0, length);
}

/** Named adversarial texts of `length` characters (default 65,536, the webhook's longest text body). */
export function adversarialTexts(length = 65_536): Record<string, string> {
  return {
    'a × n': fill('a', length),
    '. × n + x': fill('.', length, 'x'),
    'digits × n': fill('1', length),
    'digits and spaces': fill('1 ', length),
    'phone-like groups': fill('0812 ', length, 'x'),
    '@ × n': fill('@', length),
    'a@ repeated': fill('a@', length),
    'a@b. repeated': fill('a@b.', length),
    'local part run, then @': fill('a', length, '@x'),
    'nama saya repeated': fill('nama saya ', length),
    ', saya repeated': fill(', saya ', length),
    'call me repeated': fill('call me ', length),
    'nama: repeated': fill('nama:', length),
    'honorifics repeated': fill('pak ', length),
    'saya, then whitespace': `saya${fill(' ', length - 4, 'x')}`,
    'mixed scripts': fill('aб字١ ', length),
    'whitespace × n + x': fill(' ', length, 'x'),
    'newlines × n + x': fill('\n', length, 'x'),
    '+ × n': fill('+', length),
    '( × n': fill('(', length),
    '- × n': fill('-', length),
    laughter: fill('ha', length),
    'NFKC expansion (U+FDFA)': fill('\ufdfa', length),
    'lower-case expansion (U+0130)': fill('\u0130', length),
    'emoji (surrogate pairs)': fill('😀', length),
    'address, then a punctuation run': `a@b.co${fill('.', length - 6, 'x')}`,
    'distinct addresses': numbered((i) => `u${i}@x${i}.co `, length),
    'distinct phone numbers': numbered((i) => `0812${String(1_000_000 + (i % 9_000_000))} `, length),
  };
}

/**
 * The fastest of up to `runs` runs of `work`, in milliseconds, after one warm-up run on a short input
 * (compiling the code and its expressions is not what is measured). Stops early once a run is under
 * `enough` ms: a load spike on a shared machine makes one run slow, not all of them.
 */
export function fastestRunMs(
  work: (text: string) => unknown,
  text: string,
  options: { runs?: number; enough?: number } = {},
): number {
  work(text.slice(0, 64));
  let fastest = Number.POSITIVE_INFINITY;
  for (let run = 0; run < (options.runs ?? 3); run++) {
    const started = performance.now();
    work(text);
    fastest = Math.min(fastest, performance.now() - started);
    if (fastest < (options.enough ?? 0)) break;
  }
  return fastest;
}
