/**
 * The Windows operator without Windows: PowerShell and UI Automation run only on Windows, so the helper's process is
 * stood in for by test/computer/fake-uia-helper-main.ts, which speaks its line protocol and prints replies recorded in
 * the shape the helper prints them (fixtures/uia-notepad.json). What is tested: the requests sent (ref → pattern),
 * the replies turned into the same outline and refs as on Linux, errors and a dying helper, and the script's text.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ComputerUseService } from '../../src/main/services/computer/computer-use';
import type { AppGrantBook } from '../../src/main/services/computer/index';
import { createOperator } from '../../src/main/services/computer/operators';
import { createWindowsOperator, helperFile, powerShellArgs, PowerShellTransport, WIN_MESSAGES, winRole } from '../../src/main/services/computer/windows';
import { WIN_HELPER } from '../../src/main/services/computer/windows-helper';
import { tempDir } from '../support/tool-context';

const allGranted: AppGrantBook = { list: () => [], get: () => null, grant: () => { throw new Error('not here'); }, revoke: () => false, isGranted: () => true, wasRevoked: () => false };
const HERE = import.meta.dirname;

function fakeHelper() {
  const log = join(tempDir('deskhand-uia-'), 'requests.jsonl');
  let starts = 0;
  const transport = new PowerShellTransport(() => {
    starts++;
    return spawn(process.execPath, ['--import', 'tsx', join(HERE, 'fake-uia-helper-main.ts'), join(HERE, 'fixtures', 'uia-notepad.json'), log], { stdio: 'pipe' });
  });
  const requests = () =>
    readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { cmd: string; args: Record<string, unknown> })
      .map((r) => `${r.cmd} ${JSON.stringify(r.args)}`);
  return { transport, requests, operator: createWindowsOperator(transport), starts: () => starts };
}

describe('Windows operator (UI Automation through a PowerShell helper)', () => {
  it('turns the helper\'s tree into the same outline and refs as on Linux, and acts by ref through UIA patterns', { timeout: 60_000 }, async () => {
    const { operator, requests, transport } = fakeHelper();
    try {
      expect(await operator.missing()).toBeNull();
      const computer = new ComputerUseService({ operator, grants: allGranted, dataDir: tempDir('deskhand-win-'), minActionIntervalMs: 0 });
      const r = await computer.observe('run_win', 'notepad', {});
      expect(r.outline).toBe(
        [
          'window "Untitled - Notepad" of notepad (0x1a0b2c, 960×600 at 320,180, in front)',
          'frame "Untitled - Notepad"',
          '  [e1] text "Text Editor" focused value="Dear Sam,"',
          '  [e2] push button "Minimize"',
          '  [e3] push button "Close"',
          '  menu bar "Application"',
          '    [e4] menu item "File" collapsed',
          '  [e5] check box "Word wrap" checked',
          '  [e6] text "Password" disabled value="••••"',
        ].join('\n'),
      );

      const click = await computer.pointer('run_win', { app: 'notepad', ref: 'e3', action: 'click' });
      expect(click.done).toBe('click on push button "Close" through its accessibility action');
      const typed = await computer.input('run_win', { app: 'notepad', ref: 'e1', text: ' Hi' });
      expect(typed.done).toBe('typed 3 characters into text "Text Editor" through its editable text');
      // The element at e5's place is gone (its runtime id no longer matches): refused, nothing sent.
      await expect(computer.pointer('run_win', { app: 'notepad', ref: 'e5', action: 'click' })).rejects.toThrow(/e5 \(check box "Word wrap"\) is gone/);

      expect(requests()).toEqual([
        'probe {}',
        'tree {"app":"notepad"}',
        'element {"pid":5120,"path":"0x1a0b2c/1/1|42.1706796.4.5"}',
        'at {"x":1257,"y":195}',
        'action {"pid":5120,"path":"0x1a0b2c/1/1|42.1706796.4.5","names":["Invoke","Toggle","SelectionItem"]}',
        'element {"pid":5120,"path":"0x1a0b2c/0|42.1706796.4.1"}',
        'at {"x":329,"y":251}',
        'settext {"pid":5120,"path":"0x1a0b2c/0|42.1706796.4.1","text":" Hi","replace":false}',
        'element {"pid":5120,"path":"0x1a0b2c/3|42.1706796.4.8"}',
      ]);
    } finally {
      transport.close();
    }
  });

  it('lists apps with their windows bottom to top; says what to do when an app runs elevated or the helper dies', { timeout: 60_000 }, async () => {
    const { operator, transport, starts } = fakeHelper();
    try {
      const apps = await operator.apps();
      expect(apps.map((a) => [a.name, a.pid, a.windows.map((w) => `${w.id} ${w.title}${w.active ? ' (active)' : ''}`)])).toEqual([
        ['explorer', 4032, ['0x10010 Program Manager']],
        ['notepad', 5120, ['0x1a0b2c Untitled - Notepad (active)']],
      ]);
      await expect(operator.readWindow('regedit')).rejects.toThrow(/E_ACCESSDENIED.*higher rights than Deskhand.*run the app normally, or run Deskhand as administrator/);
      // The helper exits mid-request: what waits fails with one line, and the next request starts it again.
      await expect(operator.readWindow('crash')).rejects.toThrow(WIN_MESSAGES.uia);
      expect((await operator.activeWindow())?.title).toBe('Untitled - Notepad');
      expect(starts()).toBe(2);
    } finally {
      transport.close();
    }
  });

  it('says in one line that PowerShell is missing when it cannot be started', async () => {
    const t = new PowerShellTransport(() => spawn('deskhand-no-such-powershell', [], { stdio: 'pipe' }));
    expect(await createWindowsOperator(t).missing()).toBe(WIN_MESSAGES.powershell);
    // On this Linux machine there is no powershell.exe: the operator chosen for win32 says the same.
    const op = createOperator({}, 'win32');
    expect(op.platform).toBe('windows');
    expect(await op.missing()).toBe(WIN_MESSAGES.powershell);
    op.close();
    for (const line of Object.values(WIN_MESSAGES)) expect(line.split('\n')).toHaveLength(1);
  });

  it('ships a helper that loads UI Automation, walks with a TreeWalker, acts through patterns and answers in JSON lines', () => {
    for (const part of [
      'Add-Type -AssemblyName UIAutomationClient',
      '[System.Windows.Automation.TreeWalker]::ControlViewWalker',
      '[System.Windows.Automation.InvokePattern]::Pattern',
      '[System.Windows.Automation.ValuePattern]::Pattern',
      '$p.Invoke()',
      '$v.SetValue(',
      '$el.GetRuntimeId()',
      'ConvertTo-Json -InputObject $reply -Depth 8 -Compress',
      '[Console]::In.ReadLine()',
    ]) {
      expect(WIN_HELPER).toContain(part);
    }
    // Every command the operator sends is one the helper answers.
    for (const cmd of ['probe', 'apps', 'tree', 'element', 'action', 'settext', 'focus', 'front', 'at', 'activate']) expect(WIN_HELPER).toContain(`'${cmd}' = {`);
    const file = helperFile(tempDir('deskhand-ps1-'));
    const bytes = readFileSync(file);
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]); // UTF-8 with BOM: Windows PowerShell 5.1 reads it as UTF-8
    expect(bytes.subarray(3).toString('utf8')).toBe(WIN_HELPER);
    expect(powerShellArgs(file)).toEqual(['-NoLogo', '-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-File', file]);
    expect(winRole('ControlType.Button')).toBe('push button');
    expect(winRole('ControlType.Edit')).toBe('text');
    expect(winRole('ControlType.SplitButton')).toBe('push button');
    expect(winRole('ControlType.NewThing')).toBe('new thing');
  });
});
