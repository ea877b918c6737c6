/**
 * unified_diff_50k_lines_ms: unifiedDiff (the edit preview) of a 50,000-line file with one line changed in the middle,
 * which should cost a scan for the common head and tail, not a full diff of the file. The test
 * (test/tools/files/helpers.test.ts) checks the hunk and its line numbers; the speed is this figure.
 */
import { unifiedDiff } from '../src/main/tools/files/diff-preview';
import { figure, timed, type BenchResult } from './lib';

const ROUNDS = 30;

export default async function bench(): Promise<BenchResult> {
  const before = Array.from({ length: 50_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const after = before.replace('line 30000\n', 'changed\n');
  const samples = await timed(ROUNDS, 3, async () => {
    if (!unifiedDiff('big.txt', before, after).includes('+changed')) throw new Error('unifiedDiff lost the change');
  });
  return { unified_diff_50k_lines_ms: figure(samples, { unit: 'ms' }) };
}
