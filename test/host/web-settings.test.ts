/**
 * Settings → Web search and Settings → URL grants through the contract (dispatch parses params as both transports do):
 * backends saved to settings.json, a typed key going one way into the vault, refusals in words, grants added with the
 * CLI's parser, listed with what they cover (private destinations only by exact host and port), and revoked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDispatch, type Dispatch } from '../../src/main/host/app/dispatch';
import { NO_SEARCH_BACKEND } from '../../src/main/host/app/web-settings';
import { tempDir } from '../support/tool-context';
import { openHarness, type Harness } from './helpers';

let h: Harness;
let dataDir: string;
let dispatch: Dispatch;
const meta = { source: 'test', bytes: 100 };
const call = (method: string, params: unknown) => dispatch(method, params, meta);

beforeEach(() => {
  dataDir = tempDir('deskhand-websettings-');
  h = openHarness({ dataDir, vault: true });
  dispatch = createDispatch(h.service, h.log);
});

afterEach(() => h.close());

describe('web search backend', () => {
  it('says clearly when none is set, and sets SearXNG with its URL', async () => {
    const none = await h.service.getWebSearch({});
    expect(none).toMatchObject({ search: null, keySaved: null, message: NO_SEARCH_BACKEND });
    const set = await call('setWebSearch', { backend: 'searxng', url: 'http://127.0.0.1:8888' });
    expect(set).toMatchObject({ ok: true, result: { search: { backend: 'searxng', url: 'http://127.0.0.1:8888', keySecret: null }, keySaved: null } });
    expect(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).search).toEqual({ backend: 'searxng', url: 'http://127.0.0.1:8888', keySecret: null });
    // The provider form saving without a search section keeps it.
    const view = await h.service.getSettings({});
    const { search: _s, ...rest } = view.settings;
    void _s;
    await call('saveSettings', rest);
    expect((await h.service.getWebSearch({})).search?.backend).toBe('searxng');
    const cleared = await call('setWebSearch', { backend: 'none' });
    expect(cleared).toMatchObject({ ok: true, result: { search: null, message: NO_SEARCH_BACKEND } });
  });

  it('refuses in words: SearXNG without a URL, a non-http URL, a key backend without a key, a bad secret name', async () => {
    expect(await call('setWebSearch', { backend: 'searxng' })).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/SearXNG needs the address/) } });
    expect(await call('setWebSearch', { backend: 'searxng', url: 'ftp://x' })).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/http\(s\) URL/) } });
    expect(await call('setWebSearch', { backend: 'brave' })).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/needs an API key/) } });
    expect(await call('setWebSearch', { backend: 'tavily', keySecret: '1 bad name' })).toMatchObject({ ok: false, error: { code: 'invalid_params' } });
    expect(await call('setWebSearch', { backend: 'searxng', url: 'http://127.0.0.1:8888', key: 'k' })).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/takes no API key/) } });
    expect((await h.service.getWebSearch({})).search).toBeNull();
  });

  it('puts a typed key into the vault under the secret name and never returns it', async () => {
    const KEY = 'brave-key-that-must-not-come-back-1234';
    const r = await call('setWebSearch', { backend: 'brave', key: KEY });
    expect(r).toMatchObject({ ok: true, result: { search: { backend: 'brave', url: null, keySecret: 'BRAVE_API_KEY' }, keySaved: true } });
    expect(JSON.stringify(r)).not.toContain(KEY);
    expect(await h.runtime.vault!.get('BRAVE_API_KEY')).toBe(KEY);
    expect(readFileSync(join(dataDir, 'settings.json'), 'utf8')).not.toContain(KEY);
    // Naming a secret that is not saved: set, but the view says the key is missing and how to add it.
    const missing = await call('setWebSearch', { backend: 'tavily', keySecret: 'TAVILY_KEY' });
    expect(missing).toMatchObject({ ok: true, result: { keySaved: false, message: expect.stringMatching(/vault has no secret TAVILY_KEY/) } });
    expect(JSON.stringify(await h.service.getSettings({}))).not.toContain(KEY);
  });

  it('refuses a typed key when there is no vault, and changes nothing', async () => {
    const dir = tempDir('deskhand-websettings-novault-');
    const bare = openHarness({ dataDir: dir });
    try {
      await expect(bare.service.setWebSearch({ backend: 'brave', url: null, keySecret: null, key: 'k-123' })).rejects.toThrow(/no vault \(OS keyring\)/);
      expect((await bare.service.getWebSearch({})).search).toBeNull();
    } finally {
      bare.close();
    }
  });
});

describe('URL grants', () => {
  it('lists none, adds with the CLI parser, says what each covers, and revokes', async () => {
    expect(await h.service.listUrlGrants({})).toEqual({ grants: [] });
    const pub = await call('addUrlGrant', { pattern: 'https://api.example.com/v1/*' });
    expect(pub).toMatchObject({ ok: true, result: { grant: { pattern: 'https://api.example.com/v1/*', private: false, covers: 'https://api.example.com:443/v1/*' } } });
    const local = await h.service.addUrlGrant({ pattern: 'http://127.0.0.1:8080/api/*' });
    expect(local.grant).toMatchObject({ private: true, covers: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/api\/\* only — a private destination .*exact host and port/) });
    const wild = await h.service.addUrlGrant({ pattern: 'https://*.example.org' });
    expect(wild.grant.covers).toMatch(/public hosts under example\.org only \(a wildcard never covers a private destination\)/);
    expect(wild.grants.map((g) => g.pattern)).toEqual(['https://api.example.com/v1/*', 'http://127.0.0.1:8080/api/*', 'https://*.example.org']);
    expect(h.store.urlGrants.patterns()).toHaveLength(3);

    const after = await call('revokeUrlGrant', { id: local.grant.id });
    expect(after).toMatchObject({ ok: true });
    expect(h.store.urlGrants.patterns()).toEqual(['https://api.example.com/v1/*', 'https://*.example.org']);
  });

  it('refuses bad patterns and unknown or malformed ids in words', async () => {
    expect(await call('addUrlGrant', { pattern: 'api.example.com' })).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/is not a URL pattern: write scheme:\/\/host/) } });
    expect(await call('addUrlGrant', { pattern: 'https://user:pw@example.com/' })).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/no user name or password/) } });
    expect(await call('addUrlGrant', { pattern: 'https://ex*ample.com/' })).toMatchObject({ ok: false, error: { code: 'usage', message: expect.stringMatching(/"\*" may only start the host/) } });
    expect(await call('addUrlGrant', { pattern: '   ' })).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/The pattern is empty/) } });
    expect(await call('revokeUrlGrant', { id: 'urlg_00000000' })).toMatchObject({ ok: false, error: { code: 'not_found', message: expect.stringMatching(/not there any more/) } });
    expect(await call('revokeUrlGrant', { id: "urlg_1' OR 1=1" })).toMatchObject({ ok: false, error: { code: 'invalid_params', message: expect.stringMatching(/not a URL grant id/) } });
    expect(h.store.urlGrants.list()).toEqual([]);
  });
});
