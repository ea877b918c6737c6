/**
 * `deskhand compositions list | show ID | export ID [--version N] --out FILE.zip|FOLDER` and
 * `deskhand compositions remote add NAME REPOSITORY --branch BRANCH [--folder PATH] [--url PAGES_URL] | list | remove NAME` (the git
 * targets publish_composition may publish to). Export writes exactly one version's bytes (the approved one by default).
 */
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CompositionFiles } from '../../services/compositions/composition-files';
import { versionFiles, versionZip } from '../../services/compositions/export';
import { PublishTargets } from '../../services/compositions/publish';
import { resolveDataDir } from '../assembly/data-dir';
import { parseSubcommand, usage, withStore } from './common';

const out = (s: string) => void process.stdout.write(s);

export async function compositionsCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values, positionals } = parseSubcommand(rest, {
    version: { type: 'string' },
    out: { type: 'string' },
    branch: { type: 'string' },
    folder: { type: 'string' },
    url: { type: 'string' },
    conversation: { type: 'string' },
  });
  const dataDir = resolveDataDir(values['data-dir']);
  if (sub === 'remote') return remoteCommand(new PublishTargets(dataDir), positionals, values);
  return withStore(dataDir, (store) => {
    const comps = new CompositionFiles(store, dataDir);
    switch (sub) {
      case 'list': {
        const list = comps.list({ conversationId: values.conversation ?? null });
        if (values.json) out(`${JSON.stringify(list)}\n`);
        else if (!list.length) out('No compositions.\n');
        else for (const c of list) out(`${c.id}  ${c.kind.padEnd(8)} v${c.latestVersion}${c.approvedVersion !== null ? ` (approved v${c.approvedVersion})` : ''}  ${c.title}\n`);
        return 0;
      }
      case 'show': {
        const c = comps.get(positionals[0] ?? '');
        if (!c) throw usage(`No composition ${positionals[0] ?? '(give an ID)'}; \`deskhand compositions list\` lists them.`);
        if (values.json) {
          out(`${JSON.stringify(c)}\n`);
          return 0;
        }
        out(`${c.id}  ${c.title}  (${c.kind}, conversation ${c.conversationId ?? 'none'})\n`);
        for (const v of c.versions) {
          out(`  v${v.version}${v.revises ? ` revises v${v.revises}` : ''}  ${v.review.replace('_', ' ')}  ${v.bytes} bytes  sha256 ${v.sha256}  ${new Date(v.createdAt).toISOString()}\n`);
        }
        for (const m of c.comments) out(`  [v${m.version} ${m.kind}] ${m.text}\n`);
        return 0;
      }
      case 'export': {
        const c = comps.get(positionals[0] ?? '');
        if (!c) throw usage(`No composition ${positionals[0] ?? '(give an ID)'}.`);
        if (!values.out) throw usage('export needs --out FILE.zip or --out FOLDER.');
        const version = values.version ? Number(values.version) : (c.approvedVersion ?? c.latestVersion);
        const v = c.versions.find((x) => x.version === version);
        if (!v) throw usage(`Composition ${c.id} has no version ${values.version}.`);
        const files = versionFiles(c, version, comps.read(c.id, version));
        const target = resolve(values.out);
        if (target.endsWith('.zip')) writeFileSync(target, versionZip(c, version, files[0]!.bytes));
        else {
          if (existsSync(target) && !statSync(target).isDirectory()) throw usage(`${target} exists and is not a folder; give a folder or a .zip path.`);
          mkdirSync(target, { recursive: true });
          for (const f of files) writeFileSync(join(target, f.name), f.bytes);
        }
        process.stderr.write(`Exported ${c.id} version ${version}${version === c.approvedVersion ? ' (approved)' : ''} to ${target}.\n`);
        return 0;
      }
      default:
        throw usage('compositions needs list, show ID, export ID --out PATH, or remote add|list|remove.');
    }
  });
}

function remoteCommand(targets: PublishTargets, positionals: string[], values: { json?: boolean | undefined; branch?: string | undefined; folder?: string | undefined; url?: string | undefined }): number {
  const [action, name, repository] = positionals;
  switch (action) {
    case 'add': {
      if (!name || !repository || !values.branch) throw usage('compositions remote add needs NAME REPOSITORY --branch BRANCH [--folder PATH] [--url PAGES_URL].');
      try {
        targets.setGit(name, { repository, branch: values.branch, ...(values.folder ? { folder: values.folder } : {}), ...(values.url ? { url: values.url } : {}) });
      } catch (err) {
        throw usage(`Not saved: ${err instanceof Error ? err.message : String(err)}`);
      }
      process.stderr.write(`Saved git target ${name}: branch ${values.branch} of ${repository}.\n`);
      return 0;
    }
    case 'list': {
      const all = targets.read().git;
      if (values.json) out(`${JSON.stringify(all)}\n`);
      else if (!Object.keys(all).length) out('No git targets.\n');
      else for (const [n, t] of Object.entries(all)) out(`${n}  ${t.repository}  branch ${t.branch}${t.folder ? `  folder ${t.folder}` : ''}${t.url ? `  url ${t.url}` : ''}\n`);
      return 0;
    }
    case 'remove': {
      if (!name || !targets.git(name)) throw usage(`No git target ${name ?? '(give a NAME)'}.`);
      targets.setGit(name, null);
      process.stderr.write(`Removed git target ${name}.\n`);
      return 0;
    }
    default:
      throw usage('compositions remote needs add NAME REPOSITORY --branch BRANCH, list, or remove NAME.');
  }
}
