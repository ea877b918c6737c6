// Prints one closing line over both suites: "tests: N passed, N failed, N skipped".
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync('.test-results/vitest.json')) {
  const v = JSON.parse(readFileSync('.test-results/vitest.json', 'utf8'));
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  skipped += v.numPendingTests + (v.numTodoTests ?? 0);
}
if (existsSync('.test-results/playwright.json')) {
  const p = JSON.parse(readFileSync('.test-results/playwright.json', 'utf8'));
  passed += p.stats.expected;
  failed += p.stats.unexpected + (p.stats.flaky ?? 0);
  skipped += p.stats.skipped;
}
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
