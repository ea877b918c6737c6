/**
 * The redactor's credential shapes run only over texts holding one of their trigger words (issue 54, item 2: one
 * automaton pass, A–Z and a–z alike, decides which shapes can match; src/main/runtime/context/redaction.ts `shapesIn`). The
 * property: the trigger pass never changes an answer. Every spelling in test/support/credential-spellings.ts (and its UPPER, lower and mixed-case
 * forms, inside other text, at the start and end of a text, over several lines) is redacted exactly as when every
 * shape runs over every text, and each table row is really redacted (so the comparison can fail).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MultiMatcher } from '../../src/main/runtime/context/multi-match';
import { SecretRedactor, shapeTriggerTuning } from '../../src/main/runtime/context/redaction';
import { CREDENTIALS, spellings } from '../support/credential-spellings';

afterEach(() => {
  shapeTriggerTuning.enabled = true;
});

describe('shape triggers', () => {
  it('leave every answer as it is when every shape runs over every text', () => {
    let redactedRows = 0;
    for (const row of CREDENTIALS) {
      for (const text of spellings(row)) {
        shapeTriggerTuning.enabled = true;
        const fast = new SecretRedactor({ env: {} }).redact(text);
        shapeTriggerTuning.enabled = false;
        const full = new SecretRedactor({ env: {} }).redact(text);
        expect(fast, JSON.stringify(text)).toBe(full);
      }
      shapeTriggerTuning.enabled = true;
      if (new SecretRedactor({ env: {} }).redact(row) !== row) redactedRows++;
      else expect.fail(`not redacted at all: ${row}`);
    }
    expect(redactedRows).toBe(CREDENTIALS.length);
  });

  it('leave every answer as it is where other scripts hold look-alikes of a trigger\'s letters (only A–Z and a–z fold, in the automaton as in the shapes)', () => {
    // KELVIN SIGN, LATIN SMALL LETTER LONG S, LATIN CAPITAL LETTER I WITH DOT ABOVE, DOTLESS I: a Unicode-aware fold
    // would take them for k, s, i and i.
    const looks: [RegExp, string][] = [[/k/g, '\u212A'], [/s/g, '\u017F'], [/i/g, '\u0130'], [/I/g, '\u0131']];
    let changed = 0;
    for (const row of CREDENTIALS) {
      for (const [from, to] of looks) {
        const text = row.replace(from, to);
        if (text === row) continue;
        changed++;
        shapeTriggerTuning.enabled = true;
        const fast = new SecretRedactor({ env: {} }).redact(text);
        shapeTriggerTuning.enabled = false;
        const full = new SecretRedactor({ env: {} }).redact(text);
        expect(fast, JSON.stringify(text)).toBe(full);
      }
    }
    expect(changed).toBeGreaterThan(CREDENTIALS.length);
  });

  it('learn the same secrets (a value named like a credential is hidden in later output either way)', () => {
    for (const enabled of [true, false]) {
      shapeTriggerTuning.enabled = enabled;
      const r = new SecretRedactor({ env: {} });
      r.redact('export MY_TOKEN=Q9x7Lm2Vb8Nc4Zp1Wd6R');
      expect(r.redact('echo Q9x7Lm2Vb8Nc4Zp1Wd6R | rev')).not.toContain('Q9x7Lm2Vb8Nc4Zp1Wd6R');
    }
  });

  it('ignoreAsciiCase finds what a lower-cased naive search finds', () => {
    const words = ['key', 'pass', 'sk-', 'eyj', 'a3t', 'ghp_', 'authorization', 'token', 'ken'];
    const m = new MultiMatcher(words, { ignoreAsciiCase: true });
    const alphabet = 'kKeEyYpPaAsSsS-_gGhHtToOnN3jJ z';
    let a = 7;
    const rand = (): number => ((a = (a * 1103515245 + 12345) >>> 0) / 4294967296);
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: 60 }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
      const lower = text.toLowerCase();
      const ends = new Set<number>();
      m.scan(text, (start, end, k) => {
        expect(lower.slice(start, end)).toBe(words[k]);
        ends.add(end);
      });
      for (const w of words) for (let i = lower.indexOf(w); i !== -1; i = lower.indexOf(w, i + 1)) expect(ends.has(i + w.length)).toBe(true);
    }
  });
});
