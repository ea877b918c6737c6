/** Writers that can be low-risk inside the workspace: mkdir and touch, each target placed by the path guard. */
import type { ProgramContext } from './context';
import { scanOptions } from './options';
import { highRisk, merge, readOnly, type Verdict } from './verdict';

export function writerVerdict(ctx: ProgramContext, name: string, literal: readonly string[] | null): Verdict | null {
  switch (name) {
    case 'mkdir':
    case 'touch': {
      if (!literal) return highRisk(name, 'has arguments that are not plain literals, so the paths it creates cannot be checked');
      const scan =
        name === 'mkdir'
          ? scanOptions(literal, { short: 'm', long: ['mode', 'context'] })
          : scanOptions(literal, { short: 'drt', long: ['reference', 'date', 'time'] });
      if (scan.operands.length === 0) return readOnly(name, 'nothing to create');
      let v: Verdict = { risk: 'read-only', reasons: [], network: false, program: name };
      for (const target of scan.operands) v = merge(v, ctx.a.writeTarget(name, target, name === 'mkdir' ? 'creates a folder' : 'creates or touches a file'));
      return v;
    }
    default:
      return null;
  }
}
