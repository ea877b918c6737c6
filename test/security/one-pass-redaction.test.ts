/**
 * One pass for all secrets (issue 54, item 2): the redactor finds every needle (each secret's forms, windows of long
 * secrets, folded secrets) in one scan of an Aho–Corasick automaton (src/main/runtime/context/multi-match.ts) instead of one
 * `indexOf` pass per needle. The automaton is checked against a naive search on random texts (overlapping needles,
 * needles inside needles, a set big enough to need several automatons), and the redactor keeps its guarantees:
 * overlapping secrets are redacted as their union, a secret learned or added mid-stream is hidden from then on, and a
 * secret split across stream chunks at any point is redacted whole.
 */
import { describe, expect, it } from 'vitest';
import { MultiMatcher } from '../../src/main/runtime/context/multi-match';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const randomText = (rand: () => number, alphabet: string, n: number): string =>
  Array.from({ length: n }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');

/** Which characters of `text` some occurrence of some pattern covers, the slow way. */
function naiveCover(text: string, patterns: readonly string[]): boolean[] {
  const cover = new Array<boolean>(text.length).fill(false);
  for (const p of patterns) {
    for (let i = text.indexOf(p); i !== -1; i = text.indexOf(p, i + 1)) for (let j = i; j < i + p.length; j++) cover[j] = true;
  }
  return cover;
}

function matcherCover(text: string, m: MultiMatcher, folded = false): boolean[] {
  const cover = new Array<boolean>(text.length).fill(false);
  const mark = (start: number, end: number, k: number): void => {
    if (!folded) expect(text.slice(start, end)).toBe(m.patterns[k]);
    for (let j = start; j < end; j++) cover[j] = true;
  };
  if (folded) m.scanFolded(text, mark);
  else m.scan(text, mark);
  return cover;
}

function naivePending(text: string, patterns: readonly string[]): number {
  let best = 0;
  for (const p of patterns) {
    for (let len = Math.min(p.length - 1, text.length); len > best; len--) {
      if (p.startsWith(text.slice(text.length - len))) {
        best = len;
        break;
      }
    }
  }
  return best;
}

describe('the multi-pattern automaton', () => {
  it('covers exactly what a naive search of every needle covers (overlapping needles, needles inside needles)', () => {
    const rand = rng(7);
    for (let round = 0; round < 200; round++) {
      const alphabet = round % 2 ? 'ab' : 'abcé😀';
      const patterns = Array.from({ length: 1 + Math.floor(rand() * 12) }, () => randomText(rand, alphabet, 1 + Math.floor(rand() * 6)));
      const m = new MultiMatcher(patterns);
      const text = randomText(rand, alphabet + 'xyz', 200);
      expect(matcherCover(text, m)).toEqual(naiveCover(text, patterns));
      for (const cut of [0, 1, 5, 50, 199, 200]) expect(m.pendingPrefix(text.slice(0, cut))).toBe(naivePending(text.slice(0, cut), patterns));
    }
  });

  it('reports the longest needle that ends at a position', () => {
    const m = new MultiMatcher(['cd', 'abcd', 'bcd', 'xabcdy']);
    const hits: string[] = [];
    m.scan('..abcd..xabcdy', (s, e) => hits.push(`${s}-${e}`));
    expect(hits).toEqual(['2-6', '9-13', '8-14']);
  });

  it('finds needles with line breaks and the indentation after them left out, at their real positions', () => {
    const m = new MultiMatcher(['SECRETVALUE']);
    const text = 'a SECR\n   ETVAL\r\n\tUE b SECRETVALUE';
    const hits: [number, number][] = [];
    m.scanFolded(text, (s, e) => hits.push([s, e]));
    expect(hits).toEqual([
      [2, text.indexOf('UE b') + 2],
      [text.length - 11, text.length],
    ]);
    const rand = rng(11);
    for (let round = 0; round < 100; round++) {
      const patterns = Array.from({ length: 1 + Math.floor(rand() * 5) }, () => randomText(rand, 'ab', 2 + Math.floor(rand() * 5)));
      const text = randomText(rand, 'ab\n \t', 120);
      // The naive way: the text without its breaks (and indentation after them), positions mapped back.
      const map: number[] = [];
      let flat = '';
      for (let i = 0; i < text.length; i++) {
        if (text[i] === '\n') {
          while (text[i + 1] === ' ' || text[i + 1] === '\t') i++;
          continue;
        }
        map.push(i);
        flat += text[i];
      }
      const want = new Array<boolean>(text.length).fill(false);
      naiveCover(flat, patterns).forEach((c, i) => {
        if (c) want[map[i]!] = true;
      });
      const got = matcherCover(text, new MultiMatcher(patterns), true).map((c, i) => c && !(text[i] === '\n' || ((text[i] === ' ' || text[i] === '\t') && !map.includes(i))));
      expect(got).toEqual(want);
    }
  });

  it('splits a very large needle set over several automatons and still finds every needle', () => {
    const rand = rng(3);
    // Over 100 distinct characters and ~200k needle characters: more than one table's worth.
    const alphabet = Array.from({ length: 120 }, (_, i) => String.fromCharCode(0x4e00 + i)).join('');
    const patterns = Array.from({ length: 5000 }, () => randomText(rand, alphabet, 40));
    const m = new MultiMatcher(patterns);
    expect(m.passes).toBeGreaterThan(1);
    for (const k of [0, 1234, 2500, 4999]) {
      const text = `before ${patterns[k]} after`;
      const hits: number[] = [];
      m.scan(text, (_s, _e, i) => hits.push(i));
      expect(hits).toEqual([k]);
      expect(m.pendingPrefix(`x ${patterns[k]!.slice(0, 25)}`)).toBe(25);
    }
  });
});

const A = 'Zq8vK2mP9xR4tW7nB3cY6hJ1';
const B = 'tW7nB3cY6hJ1Lp0sDf5gHk2Q'; // starts with the last 12 characters of A

describe('the redactor with one pass', () => {
  it('redacts overlapping and nested secrets as their union, nothing of either left at an edge', () => {
    const r = new SecretRedactor({ env: {}, shapes: false, secrets: { A, B, INNER: 'mP9xR4tW' } });
    const text = `x ${A}Lp0sDf5gHk2Q y ${A.slice(0, 16)} z`;
    const out = r.redact(text);
    expect(out).toBe('x [redacted:A] y [redacted:A] z');
    for (const s of [A, B]) for (let i = 0; i + 6 <= s.length; i++) expect(out).not.toContain(s.slice(i, i + 6));
  });

  it('hides a secret added mid-stream from then on, and one learned from an assignment when it comes back reshaped', () => {
    const r = new SecretRedactor({ env: {} });
    const out: string[] = [];
    const s = r.stream((_k, t) => out.push(t));
    s.push('out', 'first line\n');
    r.addSecret('LATER', B);
    s.push('out', `second ${B.slice(0, 10)}`);
    s.push('out', `${B.slice(10)} done\nAPI_TOKEN=${A}\n`);
    // rev of the learned value, then a 12-character piece of it (cut -c).
    s.push('out', `${[...A].reverse().join('')}\n${A.slice(5, 19)}\n`);
    s.flush();
    const all = out.join('');
    expect(all).toContain('[redacted:LATER] done');
    expect(all).toContain('API_TOKEN=[redacted:API_TOKEN]');
    expect(all).not.toContain(B.slice(0, 10));
    expect(all).not.toContain([...A].reverse().join('').slice(0, 12));
    expect(all).not.toContain(A.slice(5, 19));
  });

  it('redacts a secret split across chunks at every point, and across several chunks, in one stream or two', () => {
    const r = new SecretRedactor({ env: {}, shapes: false, secrets: { A, SHORT: 'p4ss' } });
    const b64 = Buffer.from(A).toString('base64');
    const text = `start ${A} middle p4ss and ${b64} end`;
    const want = r.redact(text);
    expect(want).toBe('start [redacted:A] middle [redacted:SHORT] and [redacted:A] end');
    for (let cut = 1; cut < text.length; cut++) {
      const out: string[] = [];
      const s = r.stream((_k, t) => out.push(t));
      s.push('out', text.slice(0, cut));
      s.push(cut % 2 ? 'err' : 'out', text.slice(cut));
      s.flush();
      expect(out.join('')).toBe(want);
    }
    const rand = rng(5);
    for (let round = 0; round < 100; round++) {
      const cuts = [...new Set(Array.from({ length: 6 }, () => 1 + Math.floor(rand() * (text.length - 1))))].sort((x, y) => x - y);
      const out: string[] = [];
      const s = r.stream((_k, t) => out.push(t));
      let at = 0;
      for (const c of [...cuts, text.length]) {
        s.push('out', text.slice(at, c));
        at = c;
      }
      s.flush();
      expect(out.join('')).toBe(want);
    }
  });

  it('redacts a long secret folded over lines', () => {
    const r = new SecretRedactor({ env: {}, shapes: false, secrets: { A } });
    expect(r.redact(`key:\n  ${A.slice(0, 10)}\n  ${A.slice(10)}\nnext`)).toBe('key:\n  [redacted:A]\nnext');
  });
});
