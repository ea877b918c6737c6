/** `deskhand compositions list | show | export | remote` through the real binary, over a data dir with compositions. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { CompositionFiles } from '../../src/main/services/compositions/composition-files';
import { Store } from '../../src/main/services/store/store';
import { requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

let dataDir: string;
let id: string;

beforeAll(() => {
  requireBuild();
  dataDir = tempDir('deskhand-cli-comp-');
  const store = new Store(dataDir);
  const comps = new CompositionFiles(store, dataDir);
  id = comps.create({ conversationId: null, title: 'Report', kind: 'html', bytes: Buffer.from('<p>one</p>') }).detail.id;
  comps.create({ conversationId: null, title: 'Report', kind: 'html', bytes: Buffer.from('<p>two</p>'), revises: id });
  comps.create({ conversationId: null, title: 'Report', kind: 'html', bytes: Buffer.from('<p>three</p>'), revises: id });
  comps.review(id, 2, 'approve', '');
  store.close();
});

describe('deskhand compositions', { timeout: 180_000 }, () => {
  it('lists and shows versions with their revises links and review', async () => {
    const list = await runCli(['compositions', 'list', '--data-dir', dataDir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`^${id}  html +v3 \\(approved v2\\)  Report`, 'm'));
    const show = await runCli(['compositions', 'show', id, '--data-dir', dataDir]);
    expect(show.stdout).toMatch(/v2 revises v1  approved/);
    expect(show.stdout).toMatch(/v3 revises v2  pending/);
    const json = await runCli(['compositions', 'show', id, '--json', '--data-dir', dataDir]);
    expect(JSON.parse(json.stdout).approvedVersion).toBe(2);
    const missing = await runCli(['compositions', 'show', 'cmp_0000000000', '--data-dir', dataDir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No composition cmp_0000000000');
  });

  it('exports the approved version by default, or the one asked for', async () => {
    const out = tempDir('deskhand-cli-export-');
    const zip = await runCli(['compositions', 'export', id, '--out', join(out, 'r.zip'), '--data-dir', dataDir]);
    expect(zip.code).toBe(0);
    expect(Buffer.from(unzipSync(readFileSync(join(out, 'r.zip')))['index.html']!).toString()).toBe('<p>two</p>');
    await runCli(['compositions', 'export', id, '--version', '3', '--out', join(out, 'folder'), '--data-dir', dataDir]);
    expect(readFileSync(join(out, 'folder', 'index.html'), 'utf8')).toBe('<p>three</p>');
  });

  it('adds, lists and removes git targets', async () => {
    const bare = join(tempDir('deskhand-cli-bare-'), 'x.git');
    execFileSync('git', ['init', '-q', '--bare', bare]);
    expect((await runCli(['compositions', 'remote', 'add', 'site', bare, '--branch', 'pages', '--data-dir', dataDir])).code).toBe(0);
    expect((await runCli(['compositions', 'remote', 'list', '--data-dir', dataDir])).stdout).toContain(`site  ${bare}  branch pages`);
    const bad = await runCli(['compositions', 'remote', 'add', 'x', bare, '--branch', '-evil', '--data-dir', dataDir]);
    expect(bad.code).toBe(2);
    expect((await runCli(['compositions', 'remote', 'remove', 'site', '--data-dir', dataDir])).code).toBe(0);
    expect((await runCli(['compositions', 'remote', 'list', '--data-dir', dataDir])).stdout).toBe('No git targets.\n');
  });
});
