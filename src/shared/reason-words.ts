/**
 * The approval engine's reasons as a person reads them: no rule ids or request ids (machine words; the CLI's
 * `deskhand rules list` and `runs list` show them where someone must type one). New reasons are written without them;
 * this also cleans the reasons stored before (issue 52).
 */
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

export function reasonInWords(reason: string): string {
  return (
    reason
      // "matches always-allow rule 3f2a…-… (npm test *)" → "matches your always-allow rule "npm test *""
      .replace(new RegExp(`always-allow rule(s?) ((?:(?:rule_)?${UUID} \\([^)]*\\)(?:, )?)+)`, 'g'), (_m, s: string, list: string) => {
        const patterns = [...list.matchAll(new RegExp(`(?:rule_)?${UUID} \\(([^)]*)\\)`, 'g'))].map((m) => `"${m[1]}"`);
        return `always-allow rule${s} ${[...new Set(patterns)].join(', ')}`;
      })
      .replace(new RegExp(`\\s*\\(?\\b(?:apr|req|rule)_${UUID}\\)?`, 'g'), '')
      .replace(new RegExp(`\\s*\\(?\\b${UUID}\\)?`, 'g'), '')
  );
}

/** A call's reasons as one line: each a clause, each cleaned. */
export function reasonsInWords(reasons: readonly string[]): string {
  return reasons.map(reasonInWords).join('; ');
}
