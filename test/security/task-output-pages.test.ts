/**
 * task_output redacts before it cuts a page: a secret straddling a 32 KB page boundary is never shown in part, on
 * either page, and consecutive pages still join exactly (the edge moves instead of cutting the secret).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SecretRedactor } from '../../src/main/runtime/context/redaction';
import { readRedactedPage } from '../../src/main/tools/tasks/redacted-page';
import { readLogPage } from '../../src/main/services/processes/task-log';
import { taskFixture, type TaskFixture } from '../support/tasks';
import { tempDir } from '../support/tool-context';

const PAGE = 32 * 1024;
const TOKEN = 'ghp_' + 'Zq7Xw2Lm9Rt4Kp8Vn3Bc6Yh1Jd5Gf0Sa2Ue7Wi'; // 40 chars, a GitHub token shape
const HELD = 'correct-horse-battery-staple-42x';

function pad(bytes: number): string {
  return 'x\n'.repeat(Math.ceil(bytes / 2)).slice(0, bytes);
}

/** Every page from offset 0 on, following each page's next offset. */
function allPages(path: string, redact: (t: string) => string): { texts: string[]; ends: number[] } {
  const texts: string[] = [];
  const ends: number[] = [];
  let at = 0;
  for (;;) {
    const page = readRedactedPage((o, l) => readLogPage(path, o, l), at, PAGE, redact);
    if (page.text === '') break;
    texts.push(page.text);
    ends.push(page.end);
    at = page.end;
  }
  return { texts, ends };
}

describe('task_output pages cut after redaction', () => {
  const cases: [string, string, (r: SecretRedactor) => void][] = [
    ['a credential shape', TOKEN, () => {}],
    ['a held secret', HELD, (r) => r.addSecret('HORSE', HELD)],
    ['a named assignment', `API_TOKEN=${'k9'.repeat(20)}`, () => {}],
  ];
  for (const [what, secret, setup] of cases) {
    for (const split of [1, 4, 10, secret.length - 1]) {
      it(`${what} split ${split} characters before the boundary never shows in part`, () => {
        const r = new SecretRedactor();
        setup(r);
        const redact = (t: string) => r.redact(t);
        const dir = tempDir('deskhand-pages-');
        const path = join(dir, 'out.log');
        const before = pad(PAGE - split - 6) + 'token ';
        const raw = before + secret + '\n' + pad(PAGE);
        writeFileSync(path, raw);
        expect(raw.indexOf(secret)).toBe(PAGE - split);

        const { texts } = allPages(path, redact);
        // Pages join exactly: nothing lost, nothing repeated.
        expect(texts.join('')).toBe(raw);
        // Each page as the model sees it (the pipeline redacts the page): no 6-character piece of the secret's value.
        const value = secret.slice(secret.indexOf('=') + 1);
        for (const text of texts) {
          const seen = redact(text);
          for (let i = 0; i + 6 <= value.length; i++) expect(seen).not.toContain(value.slice(i, i + 6));
        }
        // The secret is hidden on the page that holds it whole.
        expect(texts.map(redact).join('')).toContain('[redacted');
      });
    }
  }

  it('a tail page (no offset) that would start inside a secret starts after it', () => {
    const r = new SecretRedactor();
    const dir = tempDir('deskhand-pages-');
    const path = join(dir, 'out.log');
    const raw = pad(1000) + 'token ' + TOKEN + '\n' + pad(PAGE - 20);
    writeFileSync(path, raw);
    const page = readRedactedPage((o, l) => readLogPage(path, o, l), undefined, PAGE, (t) => r.redact(t));
    expect(page.end).toBe(raw.length);
    expect(r.redact(page.text)).not.toMatch(/Zq7X|Ue7Wi|Sa2U/);
  });
});

describe('task_output through the tool', () => {
  let f: TaskFixture;
  beforeEach(() => {
    f = taskFixture();
  });
  afterEach(async () => {
    await f.close();
  });

  it('a token a command printed across the 32 KB boundary reaches neither page in part', async () => {
    const ctx = f.ctx();
    const first = PAGE - 10 - 6;
    const command = `yes x | head -c ${first}; printf 'token %s\\n' ${TOKEN.slice(0, 20)}${TOKEN.slice(20)}; yes y | head -c ${PAGE}`;
    const exec = f.tools.executeCommand;
    const started = await exec.execute(exec.params.parse({ command, run_in_background: true, description: 'print' }), ctx);
    const id = /cmd_[0-9a-f]{8}/.exec(started.output)![0];
    await f.tools.waitTasks.execute({ ids: [id], timeout: 20 }, ctx);
    const one = (await f.tools.taskOutput.execute({ id, offset: 0 }, ctx)).output;
    const next = Number(/"offset": (\d+)\}\) ---/.exec(one)![1]);
    expect(next).toBeLessThan(PAGE);
    const two = (await f.tools.taskOutput.execute({ id, offset: next }, ctx)).output;
    for (const out of [one, two].map((o) => ctx.redact(o))) {
      expect(out).not.toMatch(/Zq7X|Rt4Kp|Ue7Wi|ghp_Zq/);
    }
    expect(ctx.redact(two)).toContain('[redacted');
  });
});
