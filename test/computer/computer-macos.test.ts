/**
 * The macOS operator without a Mac: osascript and System Events exist only on macOS, so the helper's real JXA text
 * runs in a Node VM against a simulated System Events (test/computer/fake-system-events.ts) — the command line it is
 * given (its arguments on stdin), what it prints, the outline and refs the service makes of it, ref → AX action, and
 * the permission lines.
 */
import { describe, expect, it } from 'vitest';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import { outlineFromHelper, type HelperTree } from '../../src/main/services/computer/desktop-helper';
import type { AppGrantBook } from '../../src/main/services/computer/index';
import { MAC_HELPER } from '../../src/main/services/computer/macos-helper';
import { createMacOperator, MAC_MESSAGES, macPlatform, macRole, OsascriptTransport, parseReply } from '../../src/main/services/computer/macos';
import { tempDir } from '../support/tool-context';
import { runJxa, type FakeMac } from './fake-system-events';

const allGranted: AppGrantBook = { list: () => [], get: () => null, grant: () => { throw new Error('not here'); }, revoke: () => false, isGranted: () => true, wasRevoked: () => false };

function textEdit(): FakeMac {
  return {
    trusted: true,
    screenRecording: true,
    log: [],
    processes: [
      { name: 'Finder', pid: 301, windows: [] },
      {
        name: 'TextEdit',
        pid: 412,
        frontmost: true,
        windows: [
          {
            role: 'AXWindow',
            subrole: 'AXStandardWindow',
            name: 'Save As',
            position: [400, 200],
            size: [480, 260],
            children: [
              { role: 'AXStaticText', value: 'Save As:', position: [420, 230], size: [60, 20] },
              { role: 'AXTextField', description: 'Save As', value: 'Untitled', focused: true, position: [490, 228], size: [260, 24], settable: ['AXValue', 'AXSelectedText'] },
              { role: 'AXSecureTextField', subrole: 'AXSecureTextField', description: 'Password', value: 'hunter2', position: [490, 260], size: [260, 24], settable: ['AXValue'] },
              { role: 'AXCheckBox', title: 'Hide extension', value: 1, actions: ['AXPress'], position: [420, 300], size: [140, 20] },
              {
                role: 'AXGroup',
                position: [400, 400],
                size: [480, 60],
                children: [
                  { role: 'AXButton', title: 'Cancel', actions: ['AXPress'], position: [660, 420], size: [90, 28] },
                  { role: 'AXButton', title: 'Save', actions: ['AXPress'], position: [760, 420], size: [90, 28] },
                  { role: 'AXButton', title: 'Delete', enabled: false, actions: ['AXPress'], position: [420, 420], size: [90, 28] },
                ],
              },
            ],
          },
        ],
      },
    ],
    cgWindows: [
      { number: 88, pid: 412, owner: 'TextEdit', title: 'Save As', bounds: [400, 200, 480, 260] },
      { number: 12, pid: 301, owner: 'Finder', title: 'Downloads', bounds: [0, 0, 1280, 800] },
      { number: 3, pid: 0, owner: 'Window Server', title: 'Menubar', bounds: [0, 0, 1280, 24], layer: 25 },
    ],
  };
}

/** The real transport with osascript replaced by the VM; every command line is kept. */
function onFakeMac(mac: FakeMac) {
  const calls: { file: string; args: string[]; input: string }[] = [];
  const transport = new OsascriptTransport(async (file, args, input) => {
    calls.push({ file, args, input });
    return runJxa(args[3]!, mac, args.slice(4), input);
  });
  return { calls, transport, operator: createMacOperator(transport) };
}

describe('macOS helper (JXA over System Events)', () => {
  it('is run as osascript -l JavaScript -e <helper> <command>, its arguments (a typed secret too) on stdin, never in argv', async () => {
    const mac = textEdit();
    const { calls, operator } = onFakeMac(mac);
    await operator.readWindow('TextEdit');
    expect(calls[0]!.file).toBe('/usr/bin/osascript');
    expect(calls[0]!.args).toEqual(['-l', 'JavaScript', '-e', MAC_HELPER, 'tree']);
    expect(calls[0]!.input).toBe('{"app":"TextEdit"}');
    await operator.editText({ bus: '412', path: '0/2|AXSecureTextField' }, 'correct horse', true);
    expect(calls.at(-1)!.args).toEqual(['-l', 'JavaScript', '-e', MAC_HELPER, 'settext']);
    expect(calls.at(-1)!.input).toContain('correct horse');
    expect(mac.log).toEqual(['set AXValue of AXSecureTextField to "correct horse"']);
    // The helper reads the AX API through System Events and the window list through CoreGraphics.
    expect(MAC_HELPER).toContain("Application('System Events')");
    expect(MAC_HELPER).toContain('CGWindowListCopyWindowInfo');
    expect(MAC_HELPER).toContain('$.AXIsProcessTrusted()');
  });

  it('prints the window as one JSON reply that becomes the same outline and refs as on Linux', async () => {
    const mac = textEdit();
    const printed = runJxa(MAC_HELPER, mac, ['tree'], '{"app":"TextEdit"}');
    const reply = JSON.parse(printed) as { ok: boolean; result: HelperTree };
    expect(reply.ok).toBe(true);
    expect(reply.result.window).toEqual({ id: '88', title: 'Save As', pid: 412, app: 'TextEdit', bounds: [400, 200, 480, 260], active: true });
    // The password's value never leaves the helper.
    expect(printed).not.toContain('hunter2');

    const { operator } = onFakeMac(mac);
    const computer = new ComputerUseService({ operator, grants: allGranted, dataDir: tempDir('deskhand-mac-') });
    const r = await computer.observe('run_mac', 'TextEdit', {});
    expect(r.outline).toBe(
      [
        'window "Save As" of TextEdit (88, 480×260 at 400,200, in front)',
        'frame "Save As"',
        '  label "Save As:"',
        '  [e1] text "Save As" focused value="Untitled"',
        '  [e2] password text "Password" value="••••"',
        '  [e3] check box "Hide extension" checked',
        '  [e4] push button "Cancel"',
        '  [e5] push button "Save"',
        '  [e6] push button "Delete" disabled',
      ].join('\n'),
    );
    expect(r.refs).toBe(6);
  });

  it('acts by ref: a click is the element\'s AXPress, text goes in through AXSelectedText; a changed element is gone', async () => {
    const mac = textEdit();
    const { operator } = onFakeMac(mac);
    const computer = new ComputerUseService({ operator, grants: allGranted, dataDir: tempDir('deskhand-mac-'), minActionIntervalMs: 0 });
    await computer.observe('run_mac', 'TextEdit', {});
    const click = await computer.pointer('run_mac', { app: 'TextEdit', ref: 'e5', action: 'click' });
    expect(click.done).toBe('press on push button "Save" through its accessibility action');
    const typed = await computer.input('run_mac', { app: 'TextEdit', ref: 'e1', text: '.txt' });
    expect(typed.done).toBe('typed 4 characters into text "Save As" through its editable text');
    const replaced = await computer.input('run_mac', { app: 'TextEdit', ref: 'e1', text: 'Notes', replace: true });
    expect(replaced.done).toContain('through its editable text');
    expect(mac.log).toEqual(['AXPress AXButton "Save"', 'set AXSelectedText of AXTextField to ".txt"', 'set AXValue of AXTextField to "Notes"']);
    expect(mac.processes[1]!.windows[0]!.children![1]!.value).toBe('Notes');

    // The element at e6's place is now something else: the ref is refused, nothing is pressed.
    mac.processes[1]!.windows[0]!.children![4]!.children![2] = { role: 'AXStaticText', value: 'Saved', position: [420, 420], size: [90, 28] };
    await expect(computer.pointer('run_mac', { app: 'TextEdit', ref: 'e6', action: 'click' })).rejects.toThrow(/e6 \(push button "Delete"\) is gone; observe "TextEdit" again/);
    expect(mac.log).toHaveLength(3);
  });

  it('lists apps and their windows bottom to top, the frontmost one active; finds the window under a point', async () => {
    const mac = textEdit();
    const { operator } = onFakeMac(mac);
    const apps = await operator.apps();
    expect(apps.map((a) => [a.name, a.pid, a.windows.map((w) => `${w.id} ${w.title}${w.active ? ' (active)' : ''}`)])).toEqual([
      ['Finder', 301, ['12 Downloads']],
      ['TextEdit', 412, ['88 Save As (active)']],
    ]);
    expect((await operator.windowAt(500, 300))?.app).toBe('TextEdit');
    expect((await operator.windowAt(50, 700))?.app).toBe('Finder');
    expect((await operator.activeWindow())?.title).toBe('Save As');
    await operator.activate({ id: '12', title: 'Downloads', pid: 301, app: 'Finder', bounds: { x: 0, y: 0, width: 1, height: 1 }, active: false });
    expect(mac.log).toEqual(['frontmost Finder']);
    expect((await operator.activeWindow())?.app).toBe('Finder');
  });

  it('names the exact System Settings path for each missing permission, in one line', async () => {
    const mac = textEdit();
    mac.trusted = false;
    const { operator } = onFakeMac(mac);
    expect(await operator.missing()).toBe(MAC_MESSAGES.accessibility);
    expect(MAC_MESSAGES.accessibility).toContain('System Settings → Privacy & Security → Accessibility');
    const computer = new ComputerUseService({ operator, grants: allGranted, dataDir: tempDir('deskhand-mac-') });
    await expect(computer.observe('run_mac', 'TextEdit', {})).rejects.toThrow('System Settings → Privacy & Security → Accessibility');

    const noScreen = textEdit();
    noScreen.screenRecording = false;
    const s = onFakeMac(noScreen);
    expect(await s.operator.missing()).toBeNull(); // outlines work without it
    await expect(s.operator.capture({ x: 0, y: 0, width: 10, height: 10 })).rejects.toThrow('System Settings → Privacy & Security → Screen & System Audio Recording');

    const denied = textEdit();
    denied.automationDenied = true;
    const d = onFakeMac(denied);
    expect(await d.operator.missing()).toBe(MAC_MESSAGES.automation);
    await expect(d.operator.readWindow('TextEdit')).rejects.toThrow('System Settings → Privacy & Security → Automation → Deskhand → System Events');

    for (const line of Object.values(MAC_MESSAGES)) expect(line.split('\n')).toHaveLength(1);
  });

  it('says what is wrong with a bad reply, an unknown app or window, and when osascript is not there', async () => {
    expect(() => parseReply('osascript: execution error')).toThrow(/not its JSON reply: osascript: execution error/);
    const { operator } = onFakeMac(textEdit());
    await expect(operator.readWindow('Pages')).rejects.toThrow('No running app named "Pages"; computer_apps lists the names.');
    await expect(operator.readWindow('TextEdit', 'Print')).rejects.toThrow('"TextEdit" has no window "Print"; its windows: "Save As".');
    // On this Linux machine there is no /usr/bin/osascript: the real transport says so.
    expect(await createMacOperator().missing()).toBe(MAC_MESSAGES.osascript);
  });

  it('maps AX roles to the outline\'s words', () => {
    expect(macRole('AXButton')).toBe('push button');
    expect(macRole('AXTextField', 'AXSearchField')).toBe('text');
    expect(macRole('AXWindow', 'AXDialog')).toBe('dialog');
    expect(macRole('AXRadioButton', 'AXTabButton')).toBe('page tab');
    expect(macRole('AXLevelIndicator')).toBe('level indicator');
    const nodes = outlineFromHelper(
      { window: { id: '1', title: 'w', pid: 9, app: 'x', bounds: [0, 0, 1, 1] }, nodes: [{ depth: 0, path: '0', role: 'AXWindow', name: 'w' }, { depth: 1, path: '0/0', check: 'AXButton', role: 'AXButton', name: 'Go', actions: ['AXPress'] }] },
      macPlatform,
    );
    expect(nodes[1]).toEqual({ depth: 1, role: 'push button', name: 'Go', states: [], handle: { bus: '9', path: '0/0|AXButton' } });
  });
});
