/** Option scanning, getopt-like: enough to find the dangerous flags of a program whatever way they are spelled. */

export interface ScannedOption {
  name: string;
  long: boolean;
  value?: string;
}
export interface Scan {
  options: ScannedOption[];
  operands: string[];
}

export interface ScanSpec {
  /** Short options that take a value (attached or as the next argument). */
  short?: string;
  /** Short options whose value can only be attached (`-i.bak`). */
  optionalShort?: string;
  /** Long options that take a value (as `--name=v` or the next argument). */
  long?: readonly string[];
  /** Stop at the first operand (POSIX style: the rest is a command and its arguments). */
  stopAtOperand?: boolean;
}

export function scanOptions(args: readonly string[], spec: ScanSpec = {}): Scan {
  const options: ScannedOption[] = [];
  const operands: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq < 0 ? a.slice(2) : a.slice(2, eq);
      let value = eq < 0 ? undefined : a.slice(eq + 1);
      if (value === undefined && name !== '' && spec.long?.some((l) => l.startsWith(name))) value = args[++i] ?? '';
      options.push({ name, long: true, value });
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let j = 1; j < a.length; j++) {
        const c = a[j]!;
        if (spec.short?.includes(c)) {
          options.push({ name: c, long: false, value: j + 1 < a.length ? a.slice(j + 1) : (args[++i] ?? '') });
          break;
        }
        if (spec.optionalShort?.includes(c)) {
          options.push({ name: c, long: false, value: a.slice(j + 1) });
          break;
        }
        options.push({ name: c, long: false });
      }
      continue;
    }
    if (spec.stopAtOperand) {
      operands.push(...args.slice(i));
      break;
    }
    operands.push(a);
  }
  return { options, operands };
}

/** GNU getopt_long accepts any unambiguous prefix, so `--out` means `--output`: match prefixes, not names. */
export function findLong(scan: Scan, dangerous: readonly string[]): string | null {
  for (const o of scan.options) {
    if (o.long && o.name !== '' && dangerous.some((d) => d.startsWith(o.name))) return `--${o.name}`;
  }
  return null;
}
export function findShort(scan: Scan, dangerous: string): string | null {
  for (const o of scan.options) if (!o.long && dangerous.includes(o.name)) return `-${o.name}`;
  return null;
}
