/**
 * ask_file_picker (Spec I): the person picks files or folders — a native dialog in the desktop app, a folder browser
 * in `deskhand web`, a path prompt in a terminal, or `deskhand runs answer ID --value '{"paths": [...]}'`. What they
 * pick becomes readable for this conversation (a readable root: reading it does not ask, writing still does).
 */
import { realpathSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { DeskhandError } from '../../../shared/errors';
import { defineTool } from '../../runtime/tool';
import type { InputKind } from '../../runtime/loop/input-kinds';

const params = () => z
  .object({
    prompt: z.string().trim().min(1).max(300).describe('What to pick and why, shown to the person (e.g. "Choose the CSV export to analyse").'),
    pick: z.enum(['file', 'folder', 'any']).optional().describe('What may be picked: file (default), folder, or any.'),
    multiple: z.boolean().optional().describe('Allow picking several (default false).'),
  })
  .strict();

export interface FilePickData {
  prompt: string;
  pick: 'file' | 'folder' | 'any';
  multiple: boolean;
}

/** The `file_pick` input kind: absolute paths that exist, of the kind asked for; stored as their real paths. */
export const filePickKind: InputKind<{ paths: string[] }> = {
  kind: 'file_pick',
  answer: z.strictObject({ paths: z.array(z.string().min(1).max(4096)).min(1, 'Pick at least one path (or deny the request).').max(100) }),
  accept({ paths }, data) {
    const d = data as FilePickData;
    if (!d.multiple && paths.length > 1) throw new DeskhandError('usage', `The agent asked for one ${d.pick === 'any' ? 'path' : d.pick}; ${paths.length} were given.`);
    return {
      paths: paths.map((p) => {
        if (!isAbsolute(p)) throw new DeskhandError('usage', `${p} is not an absolute path. Give the full path (starting with /).`);
        let real: string;
        let isDir: boolean;
        try {
          real = realpathSync(p);
          isDir = statSync(real).isDirectory();
        } catch {
          throw new DeskhandError('usage', `${p} does not exist. Check the path.`);
        }
        if (d.pick === 'file' && isDir) throw new DeskhandError('usage', `${p} is a folder; the agent asked for a file.`);
        if (d.pick === 'folder' && !isDir) throw new DeskhandError('usage', `${p} is a file; the agent asked for a folder.`);
        return real;
      }),
    };
  },
  example: '{"paths": ["/absolute/path"]}',
  label: (data) => `a request to pick ${(data as FilePickData | undefined)?.pick === 'folder' ? 'a folder' : 'a file'}`,
};

export const askFilePicker = defineTool({
  name: 'ask_file_picker',
  description:
    'Ask the person to pick a file or folder (a native dialog in the app, a folder browser in the browser UI, a path ' +
    'prompt in a terminal). Use it when you need a file outside the workspace, or do not know where it is. What they ' +
    'pick becomes readable in this conversation without further approval (writing to it still asks). Returns the ' +
    'picked absolute paths.',
  params,
  risk: 'read-only',
  disclosure: 'private',
  facts: { loadsWith: 'pick', reaches: [] },
  presentation: { title: 'Ask you to pick a file', icon: 'folder', result: 'list', summary: (args) => args.prompt },
  input: (args) => {
    const data: FilePickData = { prompt: args.prompt, pick: args.pick ?? 'file', multiple: !!args.multiple };
    return { kind: 'file_pick', description: `Pick ${data.multiple ? 'one or more' : 'a'} ${data.pick === 'any' ? 'file or folder' : data.pick}${data.multiple ? 's' : ''}`, prompt: args.prompt, data };
  },
  async execute(_args, ctx) {
    const picked = (ctx.answer as { paths?: unknown } | undefined)?.paths;
    if (!Array.isArray(picked) || picked.length === 0) throw new DeskhandError('internal', 'Nothing was picked.');
    const paths = picked.filter((p): p is string => typeof p === 'string');
    ctx.state.addReadableRoots(paths);
    return { output: `The person picked:\n${paths.join('\n')}\nThese are readable in this conversation now (read_file, ls, grep); writing to them still asks.` };
  },
});
