/**
 * The layer rules of ARCHITECTURE.md are lint rules (eslint.config.js): these feed ESLint source placed where a tool,
 * a family or a service would live and check that it is refused — or accepted — for the right reason.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rules', () => {
  it('refuse a tool importing a concrete service, and accept its interface module', async () => {
    const bad = await restricted('src/main/tools/files/example.ts', "import { BackgroundTasks } from '../../services/tasks/background-tasks';\nvoid BackgroundTasks;\n");
    expect(bad.join('\n')).toMatch(/only through its interface module/);
    const viaIndex = await restricted('src/main/tools/files/example.ts', "import type { TaskService } from '../../services/tasks';\nexport type T = TaskService;\n");
    expect(viaIndex).toEqual([]);
    const viaIndexFile = await restricted('src/main/tools/files/example.ts', "import type { TaskService } from '../../services/tasks/index';\nexport type T = TaskService;\n");
    expect(viaIndexFile).toEqual([]);
  });

  it('refuse a family importing another family, and accept its own files', async () => {
    const bad = await restricted('src/main/tools/tasks/example.ts', "import { classifyCommand } from '../shell/command-classifier';\nvoid classifyCommand;\n");
    expect(bad.join('\n')).toMatch(/never imports another family/);
    const own = await restricted('src/main/tools/shell/example.ts', "import { classifyCommand } from './command-classifier';\nvoid classifyCommand;\n");
    expect(own).toEqual([]);
  });

  it('refuse tools importing a host, and services importing the runtime', async () => {
    expect((await restricted('src/main/tools/files/example.ts', "import { assembleTools } from '../../host/assemble';\nvoid assembleTools;\n")).length).toBe(1);
    expect((await restricted('src/main/services/store/example.ts', "import { decide } from '../../runtime/approval-engine';\nvoid decide;\n")).join('\n')).toMatch(/below the runtime/);
  });
});
