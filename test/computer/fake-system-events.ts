/**
 * A simulated macOS for the JXA helper: the parts of System Events' scripting objects and of the ObjC bridge
 * (CGWindowListCopyWindowInfo, AXIsProcessTrusted, CGPreflightScreenCaptureAccess) the helper uses, shaped as JXA
 * shapes them (`p.windows()` lists, `el.properties()` records, `el.value = x` setting an attribute,
 * `procs.whose({…})()`). The helper's real text runs against it in a Node VM; every AX action and attribute set is
 * logged so tests see the effect.
 */
import { runInNewContext } from 'node:vm';

export interface FakeElement {
  role: string;
  subrole?: string;
  name?: string | null;
  title?: string;
  description?: string;
  value?: string | number | null;
  position?: [number, number];
  size?: [number, number];
  focused?: boolean;
  enabled?: boolean;
  actions?: string[];
  settable?: string[];
  children?: FakeElement[];
}

export interface FakeProcess {
  name: string;
  pid: number;
  frontmost?: boolean;
  backgroundOnly?: boolean;
  windows: FakeElement[];
}

export interface FakeMac {
  processes: FakeProcess[];
  /** On-screen windows front to back, as CGWindowListCopyWindowInfo lists them. */
  cgWindows: { number: number; pid: number; owner: string; title: string; bounds: [number, number, number, number]; layer?: number }[];
  trusted: boolean;
  screenRecording: boolean;
  /** System Events refuses Apple events (error -1743). */
  automationDenied?: boolean;
  log: string[];
}

function element(e: FakeElement, mac: FakeMac, where: string): Record<string, unknown> {
  const el: Record<string, unknown> = {
    role: () => e.role,
    name: () => e.name ?? e.title ?? null,
    properties: () => ({
      role: e.role,
      subrole: e.subrole ?? null,
      name: e.name ?? null,
      title: e.title ?? null,
      description: e.description ?? null,
      value: e.value ?? null,
      position: e.position ?? null,
      size: e.size ?? null,
      focused: !!e.focused,
      enabled: e.enabled !== false,
    }),
    uiElements: () => (e.children ?? []).map((c, i) => element(c, mac, `${where}/${i}`)),
    actions: {
      name: () => e.actions ?? [],
      byName: (n: string) => ({
        perform: () => {
          if (!(e.actions ?? []).includes(n)) throw new Error(`Can't get action "${n}".`);
          mac.log.push(`${n} ${e.role} ${JSON.stringify(e.name ?? e.title ?? '')}`);
        },
      }),
    },
    attributes: {
      byName: (n: string) => {
        const attr = {
          settable: () => (e.settable ?? []).includes(n),
        };
        Object.defineProperty(attr, 'value', {
          set(v: string) {
            if (!(e.settable ?? []).includes(n)) throw new Error(`attribute ${n} is not settable`);
            // Setting the selected text at a caret at the end appends, as typing does.
            if (n === 'AXSelectedText') e.value = `${e.value ?? ''}${v}`;
            mac.log.push(`set ${n} of ${e.role} to ${JSON.stringify(v)}`);
          },
        });
        return attr;
      },
    },
  };
  Object.defineProperty(el, 'value', {
    get: () => () => e.value ?? null,
    set: (v: string) => {
      e.value = v;
      mac.log.push(`set AXValue of ${e.role} to ${JSON.stringify(v)}`);
    },
  });
  Object.defineProperty(el, 'focused', {
    get: () => () => !!e.focused,
    set: (v: boolean) => {
      e.focused = v;
      mac.log.push(`focus ${e.role} ${JSON.stringify(e.name ?? '')}`);
    },
  });
  return el;
}

function processObject(p: FakeProcess, mac: FakeMac): Record<string, unknown> {
  const o: Record<string, unknown> = {
    name: () => p.name,
    unixId: () => p.pid,
    windows: () => p.windows.map((w, i) => element(w, mac, `${i}`)),
  };
  Object.defineProperty(o, 'frontmost', {
    get: () => () => !!p.frontmost,
    set: (v: boolean) => {
      for (const q of mac.processes) q.frontmost = false;
      p.frontmost = v;
      mac.log.push(`frontmost ${p.name}`);
    },
  });
  return o;
}

function globals(mac: FakeMac, argv: string[], stdin: string): Record<string, unknown> {
  const events = {
    get processes() {
      if (mac.automationDenied) throw new Error('Error: Not authorized to send Apple events to System Events. (-1743)');
      return {
        whose: (filter: Record<string, unknown>) => {
          const match = mac.processes.filter((p) =>
            Object.entries(filter).every(([k, v]) => (k === 'unixId' ? p.pid === v : k === 'backgroundOnly' ? !!p.backgroundOnly === v : k === 'frontmost' ? !!p.frontmost === v : k === 'name' ? p.name === v : false)),
          );
          const list = () => match.map((p) => processObject(p, mac));
          // A JXA element list is callable and answers property reads for all its members (`procs.name()`).
          Object.defineProperty(list, 'name', { value: () => match.map((p) => p.name) });
          return Object.assign(list, { unixId: () => match.map((p) => p.pid) });
        },
      };
    },
  };
  return {
    argv,
    JSON,
    Application: (name: string) => {
      if (name !== 'System Events') throw new Error(`no app ${name}`);
      return events;
    },
    ObjC: { import: () => undefined, castRefToObject: (x: unknown) => x, deepUnwrap: (x: unknown) => x, unwrap: (x: unknown) => x },
    $: {
      NSUTF8StringEncoding: 4,
      NSFileHandle: { fileHandleWithStandardInput: { readDataToEndOfFile: Buffer.from(stdin) } },
      NSString: { alloc: { initWithDataEncoding: (d: Buffer, enc: number) => (enc === 4 ? d.toString('utf8') : null) } },
      kCGWindowListOptionOnScreenOnly: 1,
      kCGWindowListExcludeDesktopElements: 16,
      kCGNullWindowID: 0,
      AXIsProcessTrusted: () => mac.trusted,
      CGPreflightScreenCaptureAccess: () => mac.screenRecording,
      CGWindowListCopyWindowInfo: () =>
        mac.cgWindows.map((w) => ({
          kCGWindowNumber: w.number,
          kCGWindowOwnerPID: w.pid,
          kCGWindowOwnerName: w.owner,
          kCGWindowName: mac.screenRecording ? w.title : undefined,
          kCGWindowLayer: w.layer ?? 0,
          kCGWindowBounds: { X: w.bounds[0], Y: w.bounds[1], Width: w.bounds[2], Height: w.bounds[3] },
        })),
    },
  };
}

/** Runs the helper's text as osascript would (`run(argv)`'s return value is what it prints), `stdin` as its input. */
export function runJxa(script: string, mac: FakeMac, argv: string[], stdin = ''): string {
  return String(runInNewContext(`${script}\nrun(argv);`, globals(mac, argv, stdin), { timeout: 5000 }));
}
