/**
 * The denylist of `execute_command` (Spec I): commands refused under every policy, high-risk included, whatever a rule
 * or a person's earlier answer says — whole-disk and root deletions, filesystem creation and disk erasure, writes to
 * block devices, fork bombs, shutting down or restarting the machine, running downloaded code (a download piped or
 * substituted into a shell or interpreter), and reading SSH private keys.
 *
 * Judged on the same bash parse as the rest of the classifier (mvdan-sh), so spellings do not slip past: quotes and
 * escapes (`'rm' -rf "/"`), wrappers (`sudo`, `doas`, `env`, `command`, `exec`, `nice`, `timeout`, `nohup`, `xargs`,
 * `busybox`…), absolute paths (`/bin/rm`), `$HOME` for `~`, and commands inside `sh -c '…'`, `eval '…'`, `$(…)`,
 * backticks, process substitutions, subshells and functions. What it cannot see (a program name or path built from
 * variables or command output, a script file that does it, code in another language) is left to the classifier,
 * which judges such commands high-risk.
 */
import { homedir } from 'node:os';
import { basename } from 'node:path';
import { parseSource } from './cache';
import { COMMAND_LIMITS } from './limits';
import { OP, OUTPUT_REDIRS, asArray, children, nodeType, type ShNode } from './sh';
import { unescapeDoubleQuoted, unescapeUnquoted } from './words';

/** One argument: its value after quote removal (globs kept as written, `$HOME` as `~`), or null; and its node. */
interface Arg {
  value: string | null;
  node: ShNode | null;
}

const PIPE = 12;
const PIPE_ALL = 13;
/** Redirections that feed a command's input: `<`, heredocs, here-strings. */
const INPUT_REDIRS = new Set<number>([OP.rdrIn, OP.hdoc, OP.dashHdoc, OP.wordHdoc]);

const SHELLS = new Set(['sh', 'bash', 'dash', 'rbash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'posh', 'fish', 'csh', 'tcsh']);
/** Interpreters and the options that give them their code inline (then they do not read it from input). */
const INTERPRETERS: Record<string, RegExp> = {
  python: /^-[A-Za-z]*[cm]/,
  perl: /^-[A-Za-z]*[eE]/,
  ruby: /^-[A-Za-z]*e/,
  node: /^(-e|-p|--eval|--print)(=|$)/,
  nodejs: /^(-e|-p|--eval|--print)(=|$)/,
  php: /^-[A-Za-z]*[rRBE]/,
  lua: /^-[A-Za-z]*e/,
};
const DOWNLOADERS = new Set(['curl', 'wget', 'wget2', 'fetch', 'aria2c', 'http', 'https', 'xh', 'xhs', 'httpie', 'lwp-request', 'GET', 'lynx', 'w3m', 'nc', 'ncat', 'netcat', 'socat']);
const POWER = new Set(['shutdown', 'reboot', 'poweroff', 'halt']);
const POWER_VERBS = new Set(['poweroff', 'reboot', 'halt', 'kexec', 'soft-reboot']);
const MKFS = /^(mkfs(\..+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkexfatfs|mkfs_\w+|newfs(_\w+)?|wipefs|blkdiscard)$/;
const DISKUTIL_ERASE = /^(erase\w*|zeroDisk|randomDisk|secureErase|partitionDisk|reformat)$/i;
/** Block devices (and memory devices), as Linux and macOS name them. */
const BLOCK_DEVICE =
  /^\/dev\/((s|h|v|xv)d[a-z]+\d*|nvme\d+(n\d+)?(p\d+)?|mmcblk\d+(p\d+)?|r?disk\d+(s\d+)?|disk\/.+|dm-\d+|md\d+|mapper\/.+|loop\d+|sr\d+|nbd\d+|zd\d+|bcache\d+|mem|kmem|port)$/;
/** Top-level folders whose removal wrecks the system (and `/` itself, `/*`, and each with `/*`). */
const ROOT_DIRS = new Set([
  'bin', 'boot', 'dev', 'etc', 'home', 'lib', 'lib32', 'lib64', 'libx32', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'usr', 'var',
  'Applications', 'Library', 'System', 'Users', 'Volumes', 'private', 'cores',
]);
/** What an SSH private key is called in ~/.ssh (every `id_*` that is not a `.pub`, and `identity`). */
const KEY_NAMES = ['id_rsa', 'id_dsa', 'id_ecdsa', 'id_ed25519', 'id_ecdsa_sk', 'id_ed25519_sk', 'id_xmss', 'identity'];
/** Programs that use a private key without printing or copying it. */
const KEY_USERS = new Set(['ssh-add', 'ssh-keygen', 'chmod', 'chown', 'chgrp', 'ls', 'stat', 'test', '[', 'rm', 'file']);
/** Programs that take a key with -i (and `-o IdentityFile=`) to log in, and would copy any other operand. */
const KEY_LOGIN = new Set(['ssh', 'scp', 'sftp', 'ssh-copy-id', 'autossh', 'sshfs']);
/** Programs that copy, pack or print a whole folder's files (then `~/.ssh` itself is the keys). */
const FOLDER_COPIERS = new Set(['cp', 'tar', 'zip', '7z', 'rsync', 'scp', 'rclone', 'ditto', 'cpio', 'pax', 'grep', 'egrep', 'fgrep', 'rg', 'ag']);

/** Why a command is refused under every policy, or null. Never throws; a command it cannot parse is left to the classifier. */
export function commandDenial(command: string, home: string = homedir()): string | null {
  try {
    return new Denylist(home).source(command, 0);
  } catch {
    return null;
  }
}

class Denylist {
  constructor(private readonly home: string) {}

  /** Parses `src` (a command, or the string of a nested `sh -c`) and checks every node. */
  source(src: string, depth: number): string | null {
    if (depth > COMMAND_LIMITS.maxDepth + 1) return null;
    const parsed = parseSource(src);
    return 'error' in parsed ? null : this.node(parsed.node, depth);
  }

  private node(node: ShNode, depth: number): string | null {
    const found = this.check(node, depth);
    if (found) return found;
    for (const child of children(node)) {
      const inner = this.node(child, depth);
      if (inner) return inner;
    }
    return null;
  }

  private check(node: ShNode, depth: number): string | null {
    switch (nodeType(node)) {
      case 'CallExpr':
        return this.call(asArray(node.Args).map((w) => this.arg(w)), depth);
      case 'Stmt':
        return this.stmt(node);
      case 'BinaryCmd':
        return this.pipeline(node);
      case 'FuncDecl':
        return this.forkBomb(node);
      default:
        return null;
    }
  }

  /** A word's value: quotes removed, globs and `~` kept as written, `$HOME`/`${HOME}` as `~`; null for other expansions. */
  private arg(word: ShNode): Arg {
    let value = '';
    for (const part of asArray(word.Parts)) {
      switch (nodeType(part)) {
        case 'Lit':
          value += unescapeUnquoted(String(part.Value));
          break;
        case 'SglQuoted':
          if (part.Dollar) return { value: null, node: word };
          value += String(part.Value);
          break;
        case 'DblQuoted':
          for (const inner of asArray(part.Parts)) {
            if (nodeType(inner) === 'Lit') value += unescapeDoubleQuoted(String(inner.Value));
            else if (isHome(inner)) value += '~';
            else return { value: null, node: word };
          }
          break;
        case 'ParamExp':
          if (!isHome(part)) return { value: null, node: word };
          value += '~';
          break;
        default:
          return { value: null, node: word };
      }
    }
    return { value, node: word };
  }

  /** One command: looked through its wrappers, then judged by what it runs. */
  private call(argv: Arg[], depth: number): string | null {
    // `$(curl …)` or `` `wget -O- …` `` as the command itself runs what was downloaded.
    const first = argv[0];
    if (first && first.value === null && first.node && this.downloads(first.node)) return 'it runs a downloaded text as a command';
    const run = this.unwrap(argv);
    if (!run) return null;
    const { name, args } = run;
    const values = args.map((a) => a.value);
    if (run.script !== undefined) return run.script === null ? null : this.source(run.script, depth + 1);

    // Running downloaded code: the code argument or script file of a shell or interpreter, eval's or source's words.
    if (runsCode(name)) {
      const code = codeArgs(name, args);
      for (const a of code) {
        if (a.node && this.downloads(a.node)) return `it runs downloaded code (${name} with ${a.value === null ? 'the output of a download' : a.value})`;
      }
      if (SHELLS.has(name)) {
        const c = shellScript(args);
        if (c !== undefined) return c === null ? null : this.source(c, depth + 1);
      }
      if (name === 'eval' && values.every((v) => v !== null)) return this.source(values.join(' '), depth + 1);
    }

    if (name === 'rm') return this.rm(values);
    if (name === 'find') return this.find(values);
    if (MKFS.test(name)) return `it creates a filesystem or erases a disk (${name})`;
    if (name === 'diskutil' && values.some((v) => v !== null && DISKUTIL_ERASE.test(v))) return `it erases a disk (diskutil ${values.find((v) => v !== null && DISKUTIL_ERASE.test(v))})`;
    if (POWER.has(name)) return `it shuts down or restarts the machine (${name})`;
    if ((name === 'init' || name === 'telinit') && values.some((v) => v === '0' || v === '6')) return `it shuts down or restarts the machine (${name} ${values.find((v) => v === '0' || v === '6')})`;
    if (name === 'systemctl' || name === 'loginctl') {
      const verb = values.find((v) => v !== null && !v.startsWith('-'));
      if (verb && POWER_VERBS.has(verb)) return `it shuts down or restarts the machine (${name} ${verb})`;
    }
    if (name === 'kexec' && values.some((v) => v === '-e' || v === '--exec')) return 'it restarts the machine into another kernel (kexec -e)';
    const device = this.deviceWrite(name, values);
    if (device) return device;
    return this.sshKey(name, args);
  }

  /**
   * The program a command runs once wrappers are looked through (sudo, doas, env, command, exec, nice, timeout…), and
   * its arguments; `script` when it runs a string as shell code (`watch`, `su -c`, `env -S`); null when the program
   * cannot be known.
   */
  private unwrap(argv: Arg[]): { name: string; args: Arg[]; script?: string | null } | null {
    let rest = argv;
    for (let guard = 0; guard < 16; guard++) {
      const head = rest[0]?.value;
      if (head === undefined || head === null || head === '') return null;
      const name = basename(head);
      let i = 1;
      const v = (k: number) => rest[k]?.value;
      const skipOptions = (withValue: RegExp, stop = /^--$/) => {
        while (i < rest.length) {
          const a = v(i);
          if (a === null || a === undefined || !a.startsWith('-') || a === '-') break;
          if (stop.test(a)) {
            i++;
            break;
          }
          i += withValue.test(a) ? 2 : 1;
        }
      };
      switch (name) {
        case 'sudo':
        case 'doas':
        case 'run0':
        case 'pkexec':
          skipOptions(/^-[ugpChDrtTUa]$|^--(user|group|host|prompt|chdir|chroot|role|type|close-from|other-user|command-timeout)$/);
          // sudo NAME=value cmd
          while (i < rest.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(v(i) ?? '')) i++;
          break;
        case 'env': {
          while (i < rest.length) {
            const a = v(i);
            if (a === null || a === undefined) return null;
            if (a === '-S' || a === '--split-string' || a.startsWith('--split-string=') || (a.startsWith('-S') && a.length > 2)) {
              const s = a === '-S' || a === '--split-string' ? v(i + 1) : a.startsWith('-S') ? a.slice(2) : a.slice('--split-string='.length);
              return { name: 'env', args: [], script: s === undefined || s === null ? null : [s, ...rest.slice(i + (a === '-S' || a === '--split-string' ? 2 : 1)).map((r) => r.value ?? '')].join(' ') };
            }
            if (a === '-u' || a === '--unset' || a === '-C' || a === '--chdir') i += 2;
            else if (a === '--') {
              i++;
              break;
            } else if (a.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) i++;
            else break;
          }
          break;
        }
        case 'command':
          if (rest.slice(1).some((a) => a.value === '-v' || a.value === '-V')) return null;
          skipOptions(/^$/);
          break;
        case 'builtin':
        case 'nohup':
        case 'setsid':
        case 'unbuffer':
        case 'caffeinate':
          skipOptions(/^$/);
          break;
        case 'exec':
          skipOptions(/^-a$/);
          break;
        case 'time':
          skipOptions(/^-[of]$|^--(output|format)$/);
          break;
        case 'nice':
          skipOptions(/^-n$|^--adjustment$/);
          break;
        case 'ionice':
          skipOptions(/^-[cnpPu]$|^--(class|classdata|pid|pgid|uid)$/);
          break;
        case 'stdbuf':
          skipOptions(/^-[ioe]$|^--(input|output|error)$/);
          break;
        case 'timeout':
          skipOptions(/^-[sk]$|^--(signal|kill-after)$/);
          i++; // the duration
          break;
        case 'chrt':
          skipOptions(/^$/);
          i++; // the priority
          break;
        case 'taskset':
          skipOptions(/^$/);
          i++; // the mask or CPU list
          break;
        case 'chroot':
          skipOptions(/^--(userspec|groups)$/);
          i++; // the new root
          break;
        case 'xargs':
          skipOptions(/^-[IEdnLPsa]$|^--(arg-file|delimiter|eof|max-args|max-lines|max-procs|max-chars|replace|process-slot-var)$/);
          break;
        case 'busybox':
        case 'toybox':
          break;
        case 'watch': {
          skipOptions(/^-[nq]$|^--(interval|equexit)$/);
          const words = rest.slice(i).map((r) => r.value);
          return { name: 'watch', args: [], script: words.every((w) => w !== null) ? words.join(' ') : null };
        }
        case 'su':
        case 'runuser': {
          const c = rest.findIndex((r) => r.value === '-c' || r.value === '--command');
          if (c < 0) return { name, args: rest.slice(1) };
          const s = rest[c + 1]?.value;
          return { name, args: [], script: s === undefined ? null : s };
        }
        default:
          return { name, args: rest.slice(1) };
      }
      rest = rest.slice(i);
    }
    return null;
  }

  /** Whole-disk, root and home deletions: `rm -rf /`, `/*`, `~`, a top-level system folder, `--no-preserve-root`. */
  private rm(values: (string | null)[]): string | null {
    if (values.includes('--no-preserve-root')) return 'it deletes the whole disk (rm --no-preserve-root)';
    let options = true;
    for (const v of values) {
      if (v === null) continue;
      if (options && v === '--') {
        options = false;
        continue;
      }
      if (options && v.startsWith('-') && v !== '-') continue;
      const what = this.protectedTarget(v);
      if (what) return `it deletes ${what}`;
    }
    return null;
  }

  /** `find / -delete`, `find ~ -exec rm …`: a deletion from a protected starting point. */
  private find(values: (string | null)[]): string | null {
    const deletes = values.some((v) => v === '-delete') || values.some((v, k) => (v === '-exec' || v === '-execdir' || v === '-ok') && values[k + 1] !== undefined && /(^|\/)(rm|shred|unlink)$/.test(values[k + 1] ?? ''));
    if (!deletes) return null;
    for (const v of values) {
      if (v === null || v.startsWith('-') || v.startsWith('(') || v === '!') break;
      const what = this.protectedTarget(v);
      if (what) return `it deletes ${what} (find … -delete)`;
    }
    return null;
  }

  /** What a deletion target destroys when it is `/`, the home folder or a top-level system folder (with or without `/*`). */
  private protectedTarget(raw: string): string | null {
    let p = raw.replace(/\/+/g, '/').replace(/(\/\.)+(?=\/|$)/g, '');
    if (p.startsWith('/') && p.length > 1) p = p.replace(/\/$/, '');
    const home = this.home.replace(/\/+$/, '');
    const glob = /\/\*$/.test(p) ? '/*' : '';
    const base = glob ? p.slice(0, -2) || '/' : p;
    if (base === '/' || base === '' || base === '/.' || base === '/..') return glob ? 'everything under / (the whole disk)' : '/ (the whole disk)';
    if (base === '~' || base === '~/' || /^~[A-Za-z0-9_.-]*$/.test(base) || (home && base === home)) return `the home folder${glob ? "'s contents" : ''} (${raw})`;
    const m = /^\/([^/]+)$/.exec(base);
    if (m && ROOT_DIRS.has(m[1]!)) return `the system folder ${base}${glob ? "'s contents" : ''}`;
    if (/^\/(home|Users)\/[^/*]+$/.test(base)) return `a home folder (${base})`;
    return null;
  }

  /** Writing to a block device with a program: dd of=, tee, cp/mv/install to it, shred, pv/cat to it by redirection (stmt). */
  private deviceWrite(name: string, values: (string | null)[]): string | null {
    const device = (v: string | null) => v !== null && BLOCK_DEVICE.test(v);
    if (name === 'dd') {
      const of = values.find((v) => v !== null && v.startsWith('of=') && BLOCK_DEVICE.test(v.slice(3)));
      return of ? `it writes to the block device ${of.slice(3)} (dd ${of})` : null;
    }
    if (name === 'tee' || name === 'shred' || name === 'sg_format' || name === 'hdparm' || name === 'badblocks') {
      // hdparm and badblocks only write with their erase/write flags; the others write every operand.
      if ((name === 'hdparm' && !values.some((v) => v !== null && /^--(security-erase|trim-sector-ranges|write-sector)/.test(v))) || (name === 'badblocks' && !values.some((v) => v !== null && /^-[a-zA-Z]*w/.test(v)))) {
        return null;
      }
      const d = values.find(device);
      return d ? `it writes to the block device ${d} (${name})` : null;
    }
    if (name === 'cp' || name === 'mv' || name === 'install' || name === 'pv' || name === 'cat') {
      const operands = values.filter((v) => v === null || !v.startsWith('-'));
      const last = operands.at(-1);
      if (name !== 'cat' && name !== 'pv' && operands.length >= 2 && device(last ?? null)) return `it writes to the block device ${last} (${name})`;
    }
    return null;
  }

  /** Redirections: output to a block device; input from an SSH private key; downloaded code fed to a shell's input. */
  private stmt(stmt: ShNode): string | null {
    const redirs = asArray(stmt.Redirs);
    for (const r of redirs) {
      const target = r.Word ? this.arg(r.Word as ShNode).value : null;
      const op = Number(r.Op);
      if (target !== null && OUTPUT_REDIRS.has(op) && BLOCK_DEVICE.test(target)) return `it writes to the block device ${target} (a redirection)`;
      if (target !== null && op === OP.rdrIn && privateKey(target)) return `it reads an SSH private key (${target})`;
    }
    const call = stmt.Cmd as ShNode | null;
    if (call && nodeType(call) === 'CallExpr' && redirs.some((r) => INPUT_REDIRS.has(Number(r.Op)))) {
      const run = this.unwrap(asArray(call.Args).map((w) => this.arg(w)));
      if (run && readsCodeFromInput(run.name, run.args) && redirs.some((r) => this.downloads(r))) return `it feeds downloaded code to ${run.name}`;
    }
    return null;
  }

  /** A pipeline whose stage downloads and a later stage runs its input as code: `curl … | sh`, `wget -O- … | sudo bash`. */
  private pipeline(node: ShNode): string | null {
    const op = Number(node.Op);
    if (op !== PIPE && op !== PIPE_ALL) return null;
    const stages: ShNode[] = [];
    const flatten = (n: ShNode) => {
      const cmd = nodeType(n) === 'Stmt' ? (n.Cmd as ShNode | null) : n;
      if (cmd && nodeType(cmd) === 'BinaryCmd' && (Number(cmd.Op) === PIPE || Number(cmd.Op) === PIPE_ALL)) {
        flatten(cmd.X as ShNode);
        flatten(cmd.Y as ShNode);
      } else stages.push(n);
    };
    flatten(node);
    const from = stages.findIndex((s) => this.downloads(s));
    if (from < 0) return null;
    for (const later of stages.slice(from + 1)) {
      const runner = this.codeFromInput(later);
      if (runner) return `it pipes a download into ${runner}, running what was downloaded`;
    }
    return null;
  }

  /** The name of a command in `node` that runs its input as code (a shell or interpreter with no script), or null. */
  private codeFromInput(node: ShNode): string | null {
    if (nodeType(node) === 'CallExpr') {
      const run = this.unwrap(asArray(node.Args).map((w) => this.arg(w)));
      if (run && readsCodeFromInput(run.name, run.args)) return run.name;
    }
    for (const child of children(node)) {
      const found = this.codeFromInput(child);
      if (found) return found;
    }
    return null;
  }

  /** Whether `node` holds a command that downloads (curl, wget… through any wrapper), anywhere inside. */
  private downloads(node: ShNode): boolean {
    if (nodeType(node) === 'CallExpr') {
      const run = this.unwrap(asArray(node.Args).map((w) => this.arg(w)));
      if (run && DOWNLOADERS.has(run.name)) return true;
    }
    return children(node).some((c) => this.downloads(c));
  }

  /** A function that starts itself in a pipeline or in the background: `:(){ :|:& };:` and its named spellings. */
  private forkBomb(decl: ShNode): string | null {
    const name = (decl.Name as ShNode | null)?.Value;
    if (typeof name !== 'string') return null;
    const callsSelf = (n: ShNode): boolean => {
      if (nodeType(n) === 'CallExpr') {
        const run = this.unwrap(asArray(n.Args).map((w) => this.arg(w)));
        if (run?.name === name) return true;
      }
      return children(n).some(callsSelf);
    };
    const spawns = (n: ShNode): boolean => {
      const t = nodeType(n);
      if (t === 'Stmt' && n.Background && callsSelf(n)) return true;
      if (t === 'BinaryCmd' && (Number(n.Op) === PIPE || Number(n.Op) === PIPE_ALL) && callsSelf(n)) return true;
      return children(n).some(spawns);
    };
    return spawns(decl.Body as ShNode) ? `it is a fork bomb (the function ${name} starts copies of itself until the machine stops)` : null;
  }

  /** Reading an SSH private key: any program but those that only use one (ssh -i, ssh-add, chmod…). */
  private sshKey(name: string, args: Arg[]): string | null {
    if (KEY_USERS.has(name)) return null;
    for (let k = 0; k < args.length; k++) {
      const text = args[k]!.value ?? guessText(args[k]!.node);
      if (text === null) continue;
      if (KEY_LOGIN.has(name) && k > 0 && (args[k - 1]!.value === '-i' || /^-o$/.test(args[k - 1]!.value ?? ''))) continue;
      if (KEY_LOGIN.has(name) && /^(-i|-oIdentityFile=|IdentityFile=)/i.test(text)) continue;
      if (name === 'rsync' && k > 0 && (args[k - 1]!.value === '-e' || args[k - 1]!.value === '--rsh')) continue;
      if (name === 'rsync' && text.startsWith('--rsh=')) continue;
      const key = privateKey(text);
      if (key) return `it reads an SSH private key (${key})`;
      if (FOLDER_COPIERS.has(name) && /(^|\/)\.ssh\/?$/.test(text)) return `it copies the SSH keys folder (${text})`;
    }
    return null;
  }
}

function isHome(part: ShNode): boolean {
  const p = part as { Param?: { Value?: unknown }; Exp?: unknown; Index?: unknown; Slice?: unknown; Repl?: unknown; Length?: unknown; Excl?: unknown };
  return nodeType(part) === 'ParamExp' && p.Param?.Value === 'HOME' && !p.Exp && !p.Index && !p.Slice && !p.Repl && !p.Length && !p.Excl;
}

/** The text of an argument that is not a plain value (`"$X/.ssh/id_rsa"`), quotes removed, for the key check. */
function guessText(node: ShNode | null): string | null {
  if (!node) return null;
  try {
    const src = JSON.stringify(asArray(node.Parts).map((p) => (nodeType(p) === 'Lit' ? String(p.Value) : nodeType(p) === 'DblQuoted' ? asArray(p.Parts).map((q) => (nodeType(q) === 'Lit' ? String(q.Value) : '$')).join('') : '$')));
    return (JSON.parse(src) as string[]).join('');
  } catch {
    return null;
  }
}

/** The SSH private key a path names (`~/.ssh/id_rsa`, `/home/u/.ssh/id_ed25519.bak`, `~/.ssh/id_*`, `.ssh/*`), or null. */
function privateKey(text: string): string | null {
  const m = /(?:^|[\s=@:,'"/])((?:[^\s=@:,'"]*\/)?\.ssh\/([^\s'"/]+))/.exec(text);
  if (!m) return null;
  const file = m[2]!;
  if (/\.pub$/.test(file)) return null;
  if (/[*?[]/.test(file)) {
    const re = new RegExp(`^${file.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`);
    return KEY_NAMES.some((k) => re.test(k)) ? m[1]! : null;
  }
  return /^(id_[A-Za-z0-9_]+|identity)(\.[\w.-]+)?$/.test(file) ? m[1]! : null;
}

function interpreterOf(name: string): RegExp | undefined {
  const base = /^python[0-9.]*$/.test(name) ? 'python' : name;
  return Object.hasOwn(INTERPRETERS, base) ? INTERPRETERS[base] : undefined;
}

function runsCode(name: string): boolean {
  return SHELLS.has(name) || interpreterOf(name) !== undefined || name === 'eval' || name === 'source' || name === '.';
}

/** The arguments that are code or a code file: a shell's or interpreter's -c/-e string and first operand; eval's words; source's file. */
function codeArgs(name: string, args: Arg[]): Arg[] {
  if (name === 'eval') return args;
  if (name === 'source' || name === '.') return args.slice(0, 1);
  const out: Arg[] = [];
  for (let k = 0; k < args.length; k++) {
    const v = args[k]!.value;
    if (v !== null && v.startsWith('-') && v !== '-') {
      if (/^-[A-Za-z]*[ceEr]$|^--(eval|print)$/.test(v) && args[k + 1]) out.push(args[k + 1]!);
      continue;
    }
    out.push(args[k]!);
    break;
  }
  return out;
}

/** A shell's `-c` string: the string, null when it is not a plain literal, undefined when the shell has no `-c`. */
function shellScript(args: Arg[]): string | null | undefined {
  for (let k = 0; k < args.length; k++) {
    const v = args[k]!.value;
    if (v === null) return undefined;
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(v)) return args[k + 1]?.value ?? null;
    if (!v.startsWith('-') && !v.startsWith('+')) return undefined;
    if (/^[-+]o$|^-O$|^--(rcfile|init-file)$/.test(v)) k++;
  }
  return undefined;
}

/** A shell or interpreter that takes its program from its input: no script file, no inline code (or `-s`, `-`, /dev/stdin). */
function readsCodeFromInput(name: string, args: Arg[]): boolean {
  if (name === 'source' || name === '.') return ['/dev/stdin', '-', '/proc/self/fd/0', '/dev/fd/0'].includes(args[0]?.value ?? '');
  const inline = SHELLS.has(name) ? /^-[A-Za-z]*c[A-Za-z]*$/ : interpreterOf(name);
  if (!inline) return false;
  for (let k = 0; k < args.length; k++) {
    const v = args[k]!.value;
    if (v === null) return false;
    if (v === '--') return args[k + 1] === undefined || ['-', '/dev/stdin'].includes(args[k + 1]!.value ?? '');
    if (v === '-' || v === '/dev/stdin' || v === '/proc/self/fd/0') return true;
    if (SHELLS.has(name) && /^-[A-Za-z]*s[A-Za-z]*$/.test(v)) return true;
    if (inline.test(v)) return false;
    if (v.startsWith('-') || (SHELLS.has(name) && v.startsWith('+'))) {
      if (/^[-+]o$|^-O$|^--(rcfile|init-file)$|^-[WX]$|^(-r|--require|--import|--loader|-I)$/.test(v)) k++;
      continue;
    }
    return false; // a script file
  }
  return true;
}
