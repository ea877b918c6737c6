/**
 * Many exact strings found in one pass over a text (Aho–Corasick), for the redactor's needles: every secret the
 * runtime knows comes with dozens of forms (encodings, windows of a long secret), and searching each with `indexOf`
 * read every text once per form. Here one scan of the text's UTF-16 code units finds all of them, with the cost of a
 * table look-up per character whatever the number of needles.
 *
 * The automaton is a complete DFA over compact character classes (a character no needle contains sends every state
 * back to the root), so the scan is a typed-array read per character. Its table grows with (total needle length ×
 * distinct characters); past `MAX_TABLE` entries the needles are split over several automatons, each scanned in turn
 * (still one pass per automaton, not one per needle).
 *
 * At each position where a needle ends, the longest needle ending there is reported (shorter ones ending there lie
 * inside it). Overlapping occurrences are all reported, so the union of the hits covers every occurrence of every
 * needle.
 *
 * With `ignoreAsciiCase`, A–Z and a–z are one character (as a RegExp's `i` flag without `u` folds them; no other
 * character is folded).
 */

/** Entries (states × character classes) one automaton's table may hold: 4 M int32 = 16 MB. */
const MAX_TABLE = 4 * 1024 * 1024;

class Automaton {
  private readonly classOf: Uint16Array;
  private readonly alpha: number;
  private readonly delta: Int32Array;
  /** The length and index of the longest needle that ends in each state (0: none). */
  private readonly outLen: Int32Array;
  private readonly outIdx: Int32Array;
  /** Depth of each state (length of the text it stands for) and whether a longer needle goes on from it. */
  private readonly depth: Int32Array;
  private readonly fail: Int32Array;
  private readonly inner: Uint8Array;
  readonly longest: number;

  constructor(patterns: readonly string[], indexes: readonly number[], ignoreAsciiCase = false) {
    if (ignoreAsciiCase) patterns = patterns.map((p) => p.replace(/[A-Z]/g, (c) => c.toLowerCase()));
    const classOf = new Uint16Array(65536);
    let alpha = 1;
    for (const p of patterns) {
      for (let i = 0; i < p.length; i++) {
        const c = p.charCodeAt(i);
        if (classOf[c] === 0) classOf[c] = alpha++;
      }
    }
    if (ignoreAsciiCase) for (let c = 65; c <= 90; c++) classOf[c] = classOf[c + 32]!;
    // The trie, children as maps while it is built.
    const children: Map<number, number>[] = [new Map()];
    const depth: number[] = [0];
    const outLenTrie: number[] = [0];
    const outIdxTrie: number[] = [-1];
    let longest = 0;
    patterns.forEach((p, k) => {
      let s = 0;
      for (let i = 0; i < p.length; i++) {
        const c = classOf[p.charCodeAt(i)]!;
        let next = children[s]!.get(c);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          depth.push(i + 1);
          outLenTrie.push(0);
          outIdxTrie.push(-1);
          children[s]!.set(c, next);
        }
        s = next;
      }
      if (p.length > outLenTrie[s]!) {
        outLenTrie[s] = p.length;
        outIdxTrie[s] = indexes[k]!;
      }
      if (p.length > longest) longest = p.length;
    });
    const n = children.length;
    this.classOf = classOf;
    this.alpha = alpha;
    this.longest = longest;
    this.delta = new Int32Array(n * alpha);
    this.outLen = new Int32Array(outLenTrie);
    this.outIdx = new Int32Array(outIdxTrie);
    this.depth = new Int32Array(depth);
    this.fail = new Int32Array(n);
    this.inner = new Uint8Array(n);
    for (let s = 0; s < n; s++) if (children[s]!.size > 0) this.inner[s] = 1;
    // Breadth first: a state's fail link and row are complete before its children's.
    const queue = new Int32Array(n);
    let head = 0;
    let tail = 0;
    for (const [c, t] of children[0]!) {
      this.delta[c] = t;
      queue[tail++] = t;
    }
    while (head < tail) {
      const s = queue[head++]!;
      const f = this.fail[s]!;
      // The longest needle ending here: this state's own, or the longest one of its fail state (a suffix of it).
      if (this.outLen[s] === 0 && this.outLen[f]! > 0) {
        this.outLen[s] = this.outLen[f]!;
        this.outIdx[s] = this.outIdx[f]!;
      }
      const row = s * alpha;
      const frow = f * alpha;
      for (let c = 1; c < alpha; c++) this.delta[row + c] = this.delta[frow + c]!;
      for (const [c, t] of children[s]!) {
        this.fail[t] = this.delta[frow + c]!;
        this.delta[row + c] = t;
        queue[tail++] = t;
      }
    }
  }

  scan(text: string, hit: (start: number, end: number, index: number) => void): void {
    const { classOf, delta, outLen, outIdx, alpha } = this;
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = classOf[text.charCodeAt(i)]!;
      if (c === 0) {
        s = 0;
        continue;
      }
      s = delta[s * alpha + c]!;
      const len = outLen[s]!;
      if (len !== 0) hit(i + 1 - len, i + 1, outIdx[s]!);
    }
  }

  /**
   * As `scan`, over the text with its line breaks, and the spaces and tabs that follow each, left out (a secret
   * folded over lines); start and end are positions in `text`.
   */
  scanFolded(text: string, hit: (start: number, end: number, index: number) => void): void {
    const { classOf, delta, outLen, outIdx, alpha } = this;
    // Where in `text` each of the last `longest` characters fed to the automaton stands.
    const ring = new Int32Array(Math.max(1, this.longest));
    let fed = 0;
    let s = 0;
    let indent = false;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === 10 || code === 13) {
        indent = true;
        continue;
      }
      if (indent && (code === 32 || code === 9)) continue;
      indent = false;
      ring[fed++ % ring.length] = i;
      const c = classOf[code]!;
      if (c === 0) {
        s = 0;
        continue;
      }
      s = delta[s * alpha + c]!;
      const len = outLen[s]!;
      if (len !== 0) hit(ring[(fed - len) % ring.length]!, i + 1, outIdx[s]!);
    }
  }

  pendingPrefix(text: string): number {
    const { classOf, delta, alpha } = this;
    let s = 0;
    // Only a proper prefix counts, so the last (longest - 1) characters are enough.
    for (let i = Math.max(0, text.length - (this.longest - 1)); i < text.length; i++) {
      const c = classOf[text.charCodeAt(i)]!;
      s = c === 0 ? 0 : delta[s * alpha + c]!;
    }
    // The longest suffix that is a prefix of some needle; a proper prefix only where a longer needle goes on.
    while (s !== 0 && this.inner[s] === 0) s = this.fail[s]!;
    return this.depth[s]!;
  }
}

/** A fixed set of needles, found in one pass (or one pass per automaton when the set is very large). */
export class MultiMatcher {
  private readonly automatons: Automaton[] = [];

  constructor(
    readonly patterns: readonly string[],
    opts: { ignoreAsciiCase?: boolean } = {},
  ) {
    let group: string[] = [];
    let indexes: number[] = [];
    let total = 1;
    let chars = new Set<number>();
    const close = (): void => {
      if (group.length) this.automatons.push(new Automaton(group, indexes, opts.ignoreAsciiCase));
      group = [];
      indexes = [];
      total = 1;
      chars = new Set();
    };
    patterns.forEach((p, k) => {
      if (!p) return;
      for (let i = 0; i < p.length; i++) chars.add(p.charCodeAt(i));
      total += p.length;
      // The trie has at most `total` states; the table holds states × (distinct characters + 1).
      if (group.length && total * (chars.size + 1) > MAX_TABLE) {
        close();
        for (let i = 0; i < p.length; i++) chars.add(p.charCodeAt(i));
        total += p.length;
      }
      group.push(p);
      indexes.push(k);
    });
    close();
  }

  /** How many passes a scan makes (1 unless the needles' table outgrew one automaton). */
  get passes(): number {
    return this.automatons.length;
  }

  /**
   * Calls `hit` for every position where a needle ends, with the longest needle ending there (its index in
   * `patterns`). Hits come in order of their end within each pass.
   */
  scan(text: string, hit: (start: number, end: number, index: number) => void): void {
    for (const a of this.automatons) a.scan(text, hit);
  }

  /** As `scan`, with line breaks and the indentation after them left out of the text (positions are in `text`). */
  scanFolded(text: string, hit: (start: number, end: number, index: number) => void): void {
    for (const a of this.automatons) a.scanFolded(text, hit);
  }

  /** The length of the longest suffix of `text` that is a proper prefix of a needle. */
  pendingPrefix(text: string): number {
    let best = 0;
    for (const a of this.automatons) best = Math.max(best, a.pendingPrefix(text));
    return best;
  }
}
