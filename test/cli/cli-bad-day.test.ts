/**
 * Issue 48, item 3, through `deskhand run --json`: a provider's bad day is visible as `run.retry` events with the
 * reason, and `--fallback-model` takes over on overload (the scripted server answers 529 / 429 first).
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/model-server';
import { useCliWorld } from '../support/cli';

const CLI_MS = 120_000;
const world = useCliWorld('badday');
const models = () => world.server.requests.map((r) => (r.body as { model: string }).model);

describe('deskhand run on a bad day', () => {
  it('--fallback-model: a 529 switches the run to the fallback, --json shows the run.retry naming it; exit 0', async () => {
    world.server.enqueue(reply().status(529), reply().text('from the small model'));
    const r = await world.run('hello', { flags: ['--fallback-model', 'small-model'] });
    expect(r.code, r.stderr).toBe(0);
    expect(models()).toEqual(['m', 'small-model']);
    const retry = r.events.find((e) => e.type === 'run.retry');
    expect(retry).toMatchObject({ attempt: 1, delayMs: 0, reason: expect.stringMatching(/overloaded \(529\).*Switching to the fallback model small-model/) });
  }, CLI_MS);

  it('a 429 with retry-after: 0 is retried on the same model after the wait it asked for; --json shows it', async () => {
    world.server.enqueue(reply().status(429, { retryAfterSeconds: 0 }), reply().text('ok'));
    const r = await world.run('hello');
    expect(r.code, r.stderr).toBe(0);
    expect(models()).toEqual(['m', 'm']);
    expect(r.events.find((e) => e.type === 'run.retry')).toMatchObject({ delayMs: 0, reason: expect.stringMatching(/rate limiting requests \(429\)/) });
  }, CLI_MS);

  it('an empty --fallback-model is a usage error (exit 2) that says what the flag wants', async () => {
    const r = await world.run('hello', { flags: ['--fallback-model', ' '] });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--fallback-model needs a model name/);
    expect(world.server.requests).toEqual([]);
  }, CLI_MS);
});
