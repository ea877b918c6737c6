/**
 * The walk over a parsed command: every node the parser produced is visited (statements, redirections, words,
 * substitutions, arithmetic, tests, declarations), each command becomes a segment, and each program is judged by
 * `classifyArgv`, which looks through wrappers and hands a program to its family's rules (git.ts, find-xargs.ts,
 * sed-awk.ts, package-managers.ts, interpreters.ts, wrappers.ts, builtins.ts, readers.ts, writers.ts).
 */
import { basename, dirname } from 'node:path';
import { builtinVerdict, readBuiltin } from './builtins';
import type { AnalysisSurface, ProgramContext } from './context';
import { findXargsVerdict } from './find-xargs';
import { gitVerdict } from './git';
import { codeRunnerVerdict, shellVerdict } from './interpreters';
import { COMMAND_LIMITS, TooComplex } from './limits';
import { packageManagerVerdict } from './package-managers';
import { lessIsReadOnly, manIsReadOnly, readerVerdict } from './readers';
import { awkVerdict, sedVerdict } from './sed-awk';
import { ARITH_TESTS, OP, OUTPUT_REDIRS, asArray, children, constantArithmetic, isAllIndex, nodeType, type ShNode } from './sh';
import { AWKS, EDITORS, ELEVATION, NETWORK_CLIENTS, PAGERS, POSIX_SHELLS, PURE_READERS, SYSTEM_DIRS, VERSION_ARGS, WRITERS } from './tables';
import { highRisk, merge, readOnly, type Verdict } from './verdict';
import { guessPath, isGlobOrBrace, unescapeDoubleQuoted, unescapeUnquoted, type WordInfo } from './words';
import { envAssignment, wrapperVerdict } from './wrappers';
import { writerVerdict } from './writers';

export class Walker implements ProgramContext {
  /** Set when anything makes the top-level command more than one plain command. */
  sawNonSimple = false;

  constructor(
    readonly a: AnalysisSurface,
    private readonly buf: Buffer,
    readonly depth: number,
  ) {}

  private text(node: ShNode): string {
    try {
      return this.buf.subarray(node.Pos().Offset(), node.End().Offset()).toString('utf8');
    } catch {
      return '';
    }
  }

  nonSimple(): void {
    this.sawNonSimple = true;
    this.a.compound = true;
  }

  private flag(node: ShNode, v: Verdict, words: string[] | null = null): void {
    this.a.addSegment({ text: this.text(node), program: v.program, risk: v.risk, reasons: v.reasons, network: v.network, words });
  }

  visit(node: ShNode): void {
    const t = nodeType(node);
    switch (t) {
      case null: // a plain struct (Slice, Replace, Expansion…)
      case 'File':
      case 'Word':
      case 'Lit':
      case 'SglQuoted':
      case 'DblQuoted':
      case 'Comment':
      case 'CaseItem':
      case 'WordIter':
      case 'ArrayExpr':
      case 'ExtGlob':
      case 'BraceExp':
      case 'UnaryArithm':
      case 'BinaryArithm':
      case 'ParenArithm':
      case 'ParenTest':
      case 'Redirect':
        break;
      case 'Stmt':
        this.stmt(node);
        break;
      case 'CallExpr':
        this.call(node);
        break;
      case 'BinaryCmd':
      case 'Block':
      case 'Subshell':
      case 'IfClause':
      case 'WhileClause':
      case 'CaseClause':
      case 'TimeClause':
      case 'CmdSubst':
      case 'ProcSubst':
        this.nonSimple();
        break;
      case 'ForClause':
        this.nonSimple();
        break;
      case 'CStyleLoop':
      case 'ArithmExp':
      case 'ArithmCmd':
        this.nonSimple();
        if (!constantArithmetic(node)) this.flag(node, highRisk(null, 'arithmetic on variables or command output can run code (bash evaluates array subscripts)'));
        break;
      case 'LetClause':
        this.nonSimple();
        this.flag(node, highRisk('let', 'evaluates arithmetic, which can run code through array subscripts'));
        break;
      case 'ParamExp':
        this.nonSimple();
        this.paramExp(node);
        break;
      case 'Assign':
      case 'ArrayElem':
        if (node.Index && !constantArithmetic(node.Index as ShNode)) {
          this.flag(node, highRisk(null, 'array subscripts with variables are evaluated as arithmetic and can run code'));
        }
        break;
      case 'TestClause':
        this.nonSimple();
        break;
      case 'BinaryTest':
        if (ARITH_TESTS.has(Number(node.Op)) && !(constantArithmetic(node.X as ShNode) && constantArithmetic(node.Y as ShNode))) {
          this.flag(node, highRisk(null, '[[ … -eq … ]] evaluates both sides as arithmetic, which can run code'));
        }
        break;
      case 'UnaryTest':
        if (Number(node.Op) === OP.testVarSet || Number(node.Op) === OP.testRefVar) {
          this.flag(node, highRisk(null, '[[ -v … ]] evaluates array subscripts, which can run code'));
        }
        break;
      case 'FuncDecl':
        this.nonSimple();
        this.flag(node, highRisk(null, 'defines a shell function, which can shadow any command'));
        break;
      case 'CoprocClause':
        this.nonSimple();
        this.flag(node, highRisk('coproc', 'starts a coprocess'));
        break;
      case 'DeclClause': {
        this.nonSimple();
        const variant = (node.Variant as ShNode | null)?.Value;
        this.flag(node, highRisk(String(variant ?? 'declare'), 'changes shell variables or the environment of later commands'));
        break;
      }
      default:
        this.nonSimple();
        this.flag(node, highRisk(null, `uses shell syntax this classifier does not know (${t})`));
    }
    for (const child of children(node)) this.visit(child);
  }

  private paramExp(node: ShNode): void {
    const exp = node.Exp as ShNode | null;
    if (node.Excl && !node.Names && !isAllIndex(node.Index as ShNode | null)) {
      this.flag(node, highRisk(null, '${!name} indirection can evaluate array subscripts, which can run code'));
    }
    if (exp && Number(exp.Op) === OP.paramExpAt) {
      this.flag(node, highRisk(null, '${name@…} transformations (such as @P) can run code'));
    }
    const index = node.Index as ShNode | null;
    if (index && !isAllIndex(index) && !constantArithmetic(index)) {
      this.flag(node, highRisk(null, 'array subscripts with variables are evaluated as arithmetic and can run code'));
    }
    const slice = node.Slice as ShNode | null;
    if (slice) {
      for (const part of [slice.Offset, slice.Length]) {
        if (part && !constantArithmetic(part as ShNode)) {
          this.flag(node, highRisk(null, '${name:offset:length} with variables is evaluated as arithmetic and can run code'));
        }
      }
    }
  }

  private stmt(node: ShNode): void {
    if (node.Background || node.Negated || node.Coprocess) this.nonSimple();
    for (const r of asArray(node.Redirs)) this.redirect(r);
  }

  private redirect(r: ShNode): void {
    const op = Number(r.Op);
    const word = r.Word ? this.word(r.Word as ShNode) : null;
    const target = word?.value ?? null;
    if (op === OP.rdrIn) {
      if (target !== null && /^\/dev\/(tcp|udp)\//.test(target)) {
        this.nonSimple();
        this.flag(r, highRisk(null, `opens a network connection (${target})`, true));
      } else {
        if (target === null) this.nonSimple();
        this.a.noteSensitivePath(word ? guessPath(word) : null, 'read');
      }
      return;
    }
    this.nonSimple();
    if (op === OP.hdoc || op === OP.dashHdoc || op === OP.wordHdoc) return;
    if (op === OP.dplIn || op === OP.dplOut) {
      if (target !== null && /^([0-9]+-?|-)$/.test(target)) return;
      if (op === OP.dplIn) {
        this.flag(r, highRisk(null, `unusual input duplication (${this.text(r)})`));
        return;
      }
    } else if (!OUTPUT_REDIRS.has(op)) {
      this.flag(r, highRisk(null, `unknown redirection (${this.text(r)})`));
      return;
    }
    if (target !== null && /^\/dev\/(null|stdout|stderr|fd\/[12])$/.test(target)) return;
    if (target === null && word) this.a.noteSensitivePath(guessPath(word), 'write');
    this.flag(r, this.a.writeTarget('redirection', target, 'writes output', { changesExisting: true }));
  }

  word(node: ShNode): WordInfo {
    const parts = asArray(node.Parts);
    let value = '';
    let literal = true;
    let single = true;
    let plainName = parts.length === 1 && nodeType(parts[0]) === 'Lit';
    parts.forEach((part, index) => {
      switch (nodeType(part)) {
        case 'Lit': {
          const raw = String(part.Value);
          if (raw.includes('\\')) plainName = false;
          if (isGlobOrBrace(raw) || (index === 0 && raw.startsWith('~'))) {
            literal = false;
            single = false;
          }
          value += unescapeUnquoted(raw);
          break;
        }
        case 'SglQuoted':
          plainName = false;
          if (part.Dollar) literal = false;
          else value += String(part.Value);
          break;
        case 'DblQuoted':
          plainName = false;
          if (part.Dollar) literal = false;
          for (const inner of asArray(part.Parts)) {
            if (nodeType(inner) === 'Lit') value += unescapeDoubleQuoted(String(inner.Value));
            else literal = false;
          }
          break;
        default:
          plainName = false;
          literal = false;
          single = false;
      }
    });
    const raw = plainName ? String(parts[0]!.Value) : null;
    return { text: this.text(node), value: literal ? value : null, single, plainName, raw, node };
  }

  /** The normalized text of a single plain command: its words separated by single spaces. */
  normalizedStmt(stmt: ShNode): string {
    const call = stmt.Cmd as ShNode;
    const words = [
      ...asArray(call.Assigns).map((a) => this.text(a)),
      ...asArray(call.Args).map((w) => this.text(w)),
      ...asArray(stmt.Redirs).map((r) => this.text(r)),
    ];
    return words.join(' ');
  }

  private call(node: ShNode): void {
    this.a.count++;
    if (this.a.count > COMMAND_LIMITS.maxSegments) {
      throw new TooComplex(`command has more than ${COMMAND_LIMITS.maxSegments} parts; too complex to analyse`);
    }
    const args = asArray(node.Args).map((w) => this.word(w));
    const assigns = asArray(node.Assigns);
    let v: Verdict = { risk: 'read-only', reasons: [], network: false, program: null };
    for (const assign of assigns) v = merge(v, envAssignment(assign, args.length === 0));
    if (args.length === 0) {
      if (v.reasons.length === 0) v.reasons.push('assigns a shell variable');
    } else {
      v = merge(v, this.classifyArgv(args));
      // Text arguments of echo and printf are not paths; every other command's path arguments are checked.
      const program = args[0]?.value;
      if (program !== 'echo' && program !== 'printf') this.a.noteArgs(args.slice(1), v.risk === 'read-only');
    }
    const literal = assigns.length === 0 && args.length > 0 && args.every((a) => a.value !== null);
    this.flag(node, v, literal ? args.map((a) => a.value as string) : null);
  }

  /** Classifies `argv` (a program and its arguments), looking through wrappers. */
  classifyArgv(argv: readonly WordInfo[], viaXargs = false): Verdict {
    const nameWord = argv[0];
    if (!nameWord) return highRisk(null, 'no command to run');
    const raw = nameWord.raw;
    if (raw === null || !/^(\[|:|[A-Za-z0-9_./][A-Za-z0-9_.+/:@%-]*)$/.test(raw)) {
      const why = /[^\x00-\x7f]/.test(nameWord.text) ? 'contains non-ASCII characters' : 'is not a plain word';
      return highRisk(null, `obfuscated command name ${JSON.stringify(nameWord.text)} (${why})`);
    }
    let name = raw;
    if (name.includes('/')) {
      if (!SYSTEM_DIRS.has(dirname(name))) return highRisk(name, 'runs a program by path; only programs from the system folders are classified');
      name = basename(name);
    }
    const rest = argv.slice(1);
    const values = rest.map((w) => w.value);
    const literal = values.every((x): x is string => x !== null) ? (values as string[]) : null;

    if (viaXargs && !PURE_READERS.has(name)) {
      return highRisk(name, 'xargs appends arguments read from input, and this program has flags that could make it write or run commands');
    }

    if (PURE_READERS.has(name)) return readOnly(name);
    if (ELEVATION.has(name)) return highRisk(name, 'runs a command with elevated privileges');
    if (name === 'less' && literal && lessIsReadOnly(literal)) return readOnly('less', 'with -F and no terminal it prints the file (LESSOPEN is not passed to commands)');
    if (name === 'man' && literal && manIsReadOnly(literal)) return readOnly('man', 'prints a manual page (no terminal, so no pager)');
    if (PAGERS.has(name)) return highRisk(name, 'pagers can run commands (!cmd, LESSOPEN); pipe to head instead');
    if (EDITORS.has(name)) return highRisk(name, 'interactive editors can write files and run commands');
    const versionArgs = Object.hasOwn(VERSION_ARGS, name) ? VERSION_ARGS[name] : undefined;
    if (versionArgs && literal?.length === 1 && versionArgs.includes(literal[0]!)) return readOnly(name, 'prints its version');
    if (AWKS.has(name)) return awkVerdict(name, literal);
    // `read` is no other shell, so asking about it first keeps the order of the rules.
    const read = name === 'read' && literal ? readBuiltin(literal) : null;
    if (read) return read;
    // Network clients are neither other shells nor code runners nor interpreters (disjoint tables).
    if (NETWORK_CLIENTS.has(name)) return highRisk(name, 'network: contacts other machines', true);
    const code = codeRunnerVerdict(name, literal);
    if (code) return code;
    const packaged = packageManagerVerdict(this, name, literal);
    if (packaged) return packaged;

    if (POSIX_SHELLS.has(name)) return shellVerdict(this, name, argv);

    const family =
      wrapperVerdict(this, name, argv, literal) ??
      findXargsVerdict(this, name, argv, literal) ??
      builtinVerdict(name, rest, literal) ??
      readerVerdict(name, literal) ??
      (name === 'sed' ? sedVerdict(literal) : null) ??
      (name === 'git' ? gitVerdict(this, literal) : null) ??
      writerVerdict(this, name, literal);
    if (family) return family;
    if (WRITERS.has(name)) return highRisk(name, 'changes files');
    return highRisk(name, 'is not a known read-only command');
  }
}
