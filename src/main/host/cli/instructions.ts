/**
 * `deskhand instructions trust [--cwd DIR] | list | untrust [--cwd DIR]`: the person trusts a folder's instruction
 * files (AGENTS.md / CLAUDE.md, the ones that apply at DIR with DIR as the workspace root). Trusting shows each file
 * and its sha256 and pins them; a file edited after that (by the agent or anyone) reaches the model as untrusted
 * content again until trusted again (runtime/context/project-instructions.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { GuardedContentReader } from '../../runtime/context/content-reader';
import { ProjectInstructions } from '../../runtime/context/project-instructions';
import { resolveDataDir } from '../assembly/data-dir';
import { out, parseSubcommand, usage, withRecords } from './common';

/** Whether a pinned file still holds the text that was trusted: 'trusted', 'changed' or 'gone'. */
function pinState(path: string, sha256: string): 'trusted' | 'changed' | 'gone' {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return 'gone';
  }
  return createHash('sha256').update(text, 'utf8').digest('hex') === sha256 ? 'trusted' : 'changed';
}

export async function instructionsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseSubcommand(rest, { cwd: { type: 'string' } });
  const dataDir = resolveDataDir(values['data-dir']);
  const cwd = resolve(values.cwd ?? process.cwd());
  return withRecords(dataDir, (store) => {
    const pins = store.instructionPins;
    const instructions = new ProjectInstructions(new GuardedContentReader({ dataDir }), dataDir, pins);
    switch (sub) {
      case 'trust': {
        const refused = instructions.report(cwd, [cwd]).refused.filter((r) => !r.path.startsWith(resolve(dataDir)));
        const files = instructions.trust(cwd, [cwd], pins);
        if (values.json) out(JSON.stringify({ trusted: files, refused }));
        else {
          if (!files.length) out(`No instruction files (AGENTS.md or CLAUDE.md) to trust in ${cwd}.`);
          for (const f of files) out(`trusted ${f.path}\n  sha256 ${f.sha256}`);
          for (const r of refused) out(`not loaded ${r.path}: ${r.reason}`);
          if (files.length) out('A change to any of these makes it untrusted again until you trust it again.');
        }
        return 0;
      }
      case 'untrust': {
        const paths = instructions.untrust(cwd, [cwd], pins);
        if (values.json) out(JSON.stringify({ untrusted: paths }));
        else out(paths.length ? paths.map((p) => `untrusted ${p}`).join('\n') : `No trusted instruction files in ${cwd}.`);
        return 0;
      }
      case 'list': {
        const rows = pins.list().map((r) => ({ path: r.path, sha256: r.sha256, trustedAt: r.trusted_at, state: pinState(r.path, r.sha256) }));
        if (values.json) out(JSON.stringify(rows));
        else if (!rows.length) out('No trusted instruction files. Trust a folder\'s with: deskhand instructions trust --cwd DIR');
        else for (const r of rows) out(`${r.state.padEnd(8)} ${r.path}\n  sha256 ${r.sha256}, trusted ${new Date(r.trustedAt).toISOString()}`);
        return 0;
      }
      default:
        throw usage('instructions needs trust [--cwd DIR], list or untrust [--cwd DIR].');
    }
  });
}
