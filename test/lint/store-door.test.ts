/**
 * Hosts behind the app service (issue 44; eslint.config.js STORE_DOOR): no host group and no Electron file imports a
 * store module or the `Store` class — value, type or re-export — with no exception: the assembly files that once built
 * services on the store (named below) are refused like any other. Hosts read rows through the runtime's records facade
 * (src/main/runtime/records.ts); the services on the store are built in the runtime (runtime/store-services.ts).
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: process.cwd() });

async function restricted(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

/** The assembly files that were the rule's exceptions before the services on the store moved into the runtime. */
const FORMER_EXCEPTIONS = ['open-store', 'host-services', 'explain-host', 'holds', 'subagent-ceilings', 'hooks-wiring', 'ledger-wiring', 'memory-host', 'subagent-runner'].map((f) => `host/assembly/${f}.ts`);
const HOSTS = [...FORMER_EXCEPTIONS, 'host/assembly/example.ts', 'host/background/example.ts', 'host/app/example.ts', 'host/peers/example.ts', 'host/web/example.ts', 'host/acp/example.ts', 'host/cli/example.ts'];
const SPELLINGS = [
  "import { Store } from '../../services/store/store';\nvoid Store;\n",
  "import type { Store } from '../../services/store/store';\nexport type S = Store;\n",
  "import { usageModule } from '../../services/store/modules/usage';\nvoid usageModule;\n",
  "import type { SubagentRow } from '../../services/store/modules/subagents';\nexport type R = SubagentRow;\n",
  "export { towerModule } from '../../services/store/modules/tower';\n",
  "export * from '../../services/store/store';\n",
  "import { useSqliteBinding } from '../../services/store/native-binding';\nvoid useSqliteBinding;\n",
];

describe('the store door', () => {
  it.each(HOSTS.flatMap((file) => SPELLINGS.map((source) => ({ file, source }))))('refuses $file: $source', async ({ file, source }) => {
    expect((await restricted(`src/main/${file}`, source)).join('\n')).toMatch(/never import the store/);
  });

  it.each(SPELLINGS)('refuses the Electron shell: %s', async (source) => {
    expect((await restricted('src/main/electron/example.ts', source.replaceAll('../../', '../'))).join('\n')).toMatch(/never import the store/);
  });

  it('accepts the records facade and the runtime\'s store door and store services', async () => {
    expect(await restricted('src/main/host/app/example.ts', "import { recordsOf, type Records } from '../../runtime/records';\nvoid recordsOf;\nexport type R = Records;\n")).toEqual([]);
    expect(await restricted('src/main/host/assembly/host-services.ts', "import { openStoreServices } from '../../runtime/store-services';\nvoid openStoreServices;\n")).toEqual([]);
    expect(await restricted('src/main/host/assembly/open-store.ts', "import { openStore } from '../../runtime/store-door';\nvoid openStore;\n")).toEqual([]);
  });

  it('holds for the tree as it stands', async () => {
    const results = await new ESLint({ cwd: process.cwd(), ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports' }).lintFiles(['src/main/host', 'src/main/electron']);
    expect(results.flatMap((r) => r.messages.map((m) => `${r.filePath}:${m.line} ${m.message}`))).toEqual([]);
  }, 120_000);
});
