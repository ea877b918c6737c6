/**
 * `deskhand hooks list [--cwd DIR] | trust [--cwd DIR] | untrust [--cwd DIR]`: the lifecycle hooks that run for a
 * folder (docs/hooks.md). The person's own (`hooks` in the data folder's settings.json) run as written; a project's
 * (`.deskhand/settings.json`, or `.claude/settings.json`) only once the person trusts it here: trusting shows each
 * hook and pins the file and the workspace scripts its commands name by sha256, and a change makes it inactive again.
 */
import { resolve } from 'node:path';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import { HookService, personalHooks, type HookEntry } from '../../services/hooks';
import { pluginHooks } from '../../services/plugins';
import { resolveDataDir } from '../assembly/data-dir';
import { out, parseSubcommand, usage, withStore } from './common';

const line = (e: HookEntry) => `  ${e.event}${e.matcher ? ` [${e.matcher}]` : ''}: ${e.command} (timeout ${e.timeoutS} s)`;

export async function hooksCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseSubcommand(rest, { cwd: { type: 'string' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const cwd = resolve(values.cwd ?? process.cwd());
  return withStore(dataDir, (store) => {
    const hooks = new HookService({ dataDir, store, reader: new GuardedContentReader({ dataDir }) });
    const { files, errors } = hooks.projectFiles([cwd]);
    switch (sub) {
      case 'list': {
        const mine = personalHooks(dataDir);
        const plugins = pluginHooks(dataDir);
        if (values.json) {
          out(JSON.stringify({ personal: { file: mine.file, hooks: mine.entries, skipped: mine.skipped, error: mine.error }, plugins: { hooks: plugins.entries, notes: plugins.notes }, project: files.map((f) => ({ path: f.path, state: f.state, sha256: f.sha256, hooks: f.entries, skipped: f.skipped })), errors }));
          return 0;
        }
        out(`Your hooks (${mine.file}): ${mine.entries.length ? 'run as written, outside the sandbox' : 'none'}`);
        if (mine.error) out(`  not read: ${mine.error}`);
        for (const e of mine.entries) out(line(e));
        for (const s of mine.skipped) out(`  skipped ${s}`);
        for (const label of new Set(plugins.entries.map((e) => e.plugin))) {
          out(`Plugin ${label} hooks: run as your own, as you accepted them (deskhand plugins)`);
          for (const e of plugins.entries.filter((x) => x.plugin === label)) out(line(e));
        }
        for (const n of plugins.notes) out(`not run: ${n}`);
        for (const f of files) {
          const state = f.state === 'trusted' ? 'trusted: runs in the OS sandbox (workspace writable, no network)' : f.state === 'changed' ? 'CHANGED since you trusted it: inactive' : 'not trusted: inactive';
          out(`Project hooks ${f.path} (${state})`);
          for (const e of f.entries) out(line(e));
          for (const s of f.skipped) out(`  skipped ${s}`);
          if (f.state !== 'trusted') out(`  Review them, then: deskhand hooks trust --cwd ${f.root}`);
        }
        for (const e of errors) out(`not read: ${e}`);
        return 0;
      }
      case 'trust': {
        if (values.json) out(JSON.stringify({ trusted: files.map((f) => ({ path: f.path, sha256: f.sha256, hooks: f.entries, scripts: f.scripts })), errors }));
        if (!files.length && !values.json) out(`No project hooks (.deskhand/settings.json or .claude/settings.json with "hooks") in ${cwd}.`);
        for (const f of files) {
          hooks.trust(f);
          if (values.json) continue;
          out(`trusted ${f.path}\n  sha256 ${f.sha256}`);
          for (const e of f.entries) out(line(e));
          for (const s of f.scripts) out(`  runs ${s.resolved}${s.sha256 ? ` (sha256 ${s.sha256.slice(0, 16)}…)` : ` (${s.note ?? 'not read'})`}`);
        }
        if (!values.json) for (const e of errors) out(`not read: ${e}`);
        if (files.length && !values.json) out('They run in the OS sandbox. A change to the file or a script it runs makes them inactive until you trust them again.');
        return 0;
      }
      case 'untrust': {
        const paths = files.filter((f) => hooks.untrust(f.path)).map((f) => f.path);
        if (values.json) out(JSON.stringify({ untrusted: paths }));
        else out(paths.length ? paths.map((p) => `untrusted ${p}`).join('\n') : `No trusted project hooks in ${cwd}.`);
        return 0;
      }
      default:
        throw usage('hooks needs list [--cwd DIR], trust [--cwd DIR] or untrust [--cwd DIR].');
    }
  });
}
