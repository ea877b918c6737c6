/**
 * `deskhand tools` and `deskhand prompt show` (issue 31), and `run --enable`: through the built CLI.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { reply, startModelServer, type OpenAIChatRequest } from '../support/model-server';
import { requireBuild, runCli } from '../support/cli';
import { tempDir } from '../support/tool-context';

beforeAll(() => requireBuild());

describe('deskhand tools and prompt show', () => {
  it('lists each tool with its family, tier, whether it asks and whether it is loaded; the prompt is printed in full', async () => {
    const dataDir = tempDir('deskhand-cli-data-');
    const work = tempDir('deskhand-cli-work-');
    const r = await runCli(['tools', '--cwd', work, '--policy', 'read-only', '--data-dir', dataDir, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const tools = (JSON.parse(r.stdout) as { tools: { name: string; family: string; tier: string; asks: string; load: string }[] }).tools;
    const by = (n: string) => tools.find((t) => t.name === n);
    expect(by('read_file')).toEqual({ name: 'read_file', family: 'files', tier: 'read-only', asks: 'no', load: 'loaded' });
    expect(by('write_file')).toMatchObject({ family: 'files', asks: 'yes', load: 'loaded' });
    expect(by('execute_command')).toMatchObject({ asks: 'per call', load: 'loaded' });
    expect(by('browser_navigate')).toMatchObject({ family: 'browser', load: 'off' });
    expect(by('read_pdf')).toMatchObject({ family: 'pdf', load: 'deferred' });
    const text = await runCli(['tools', '--cwd', work, '--data-dir', dataDir]);
    expect(text.stdout).toMatch(/^browser_navigate\s+browser\s+\S+\s+\S+\s+off$/m);

    const p = await runCli(['prompt', 'show', '--cwd', work, '--policy', 'low-risk', '--data-dir', dataDir]);
    expect(p.code, p.stderr).toBe(0);
    expect(p.stdout).toContain('You are Deskhand');
    expect(p.stdout).toContain(`Working folder (workspace root): ${work}`);
    expect(p.stdout).toContain("This conversation's policy is low-risk");
    expect(p.stdout).toMatch(/- browser \(off until loaded\): .*browser_navigate/);
  }, 120_000);

  it('run --enable browser offers the browser from the first request, and an unknown family is a usage error', async () => {
    const server = await startModelServer();
    try {
      server.enqueue(reply().text('ok'));
      const dataDir = tempDir('deskhand-cli-data-');
      const work = tempDir('deskhand-cli-work-');
      const base = ['run', '--provider', 'openai', '--base-url', server.baseURL, '--model', 'm', '--cwd', work, '--data-dir', dataDir, '--json'];
      const r = await runCli([...base, '--enable', 'browser', 'hello']);
      expect(r.code, r.stderr).toBe(0);
      const names = ((server.requests[0]!.body as OpenAIChatRequest).tools ?? []).map((t) => t.function.name);
      expect(names).toContain('browser_navigate');
      expect(names).not.toContain('computer_observe');
      const bad = await runCli([...base, '--enable', 'browsr', 'hello']);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(/--enable: unknown tool family "browsr"; families: .*browser/);
    } finally {
      await server.close();
    }
  }, 120_000);
});
