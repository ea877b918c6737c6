/** The `when` parser across time zones and DST transitions, cron, and jitter. */
import { describe, expect, it } from 'vitest';
import { cronNext, displayTime, jitterMs, offsetMinutes, parseWhen, WhenError, zonedToInstant, localZone } from '../../src/main/services/scheduler/when';

const at = (iso: string) => Date.parse(iso);

describe('parseWhen: durations', () => {
  const now = at('2026-06-01T10:00:00Z');
  it.each([
    ['30m', 30 * 60_000],
    ['2h15m', 2 * 3_600_000 + 15 * 60_000],
    ['1h 30m', 90 * 60_000],
    ['90s', 90_000],
    ['1d', 86_400_000],
    ['in 10 minutes', 600_000],
    ['in 2 hours', 7_200_000],
  ])('%s', (when, ms) => {
    const r = parseWhen(when, { now, tz: 'Europe/Berlin' });
    expect(r.at).toBe(now + ms);
    expect(r.display).toContain('Europe/Berlin, UTC+02:00');
  });
  it('refuses zero', () => expect(() => parseWhen('0m', { now, tz: 'UTC' })).toThrow(/above zero/));
});

describe('parseWhen: clock times in zones', () => {
  // [zone, now (UTC), when, expected instant (UTC)]
  const table: [string, string, string, string][] = [
    ['Europe/Berlin', '2026-06-01T10:00:00Z', '18:00', '2026-06-01T16:00:00Z'],
    ['Europe/Berlin', '2026-01-15T10:00:00Z', '18:00', '2026-01-15T17:00:00Z'],
    ['America/New_York', '2026-06-01T10:00:00Z', '18:00', '2026-06-01T22:00:00Z'],
    ['America/New_York', '2026-06-01T10:00:00Z', '6pm', '2026-06-01T22:00:00Z'],
    ['Asia/Kolkata', '2026-06-01T00:00:00Z', '18:00', '2026-06-01T12:30:00Z'],
    ['UTC', '2026-06-01T10:00:00Z', 'tomorrow 09:30', '2026-06-02T09:30:00Z'],
    ['Australia/Sydney', '2026-06-01T10:00:00Z', 'tomorrow 09:30', '2026-06-01T23:30:00Z'], // it is June 1 20:00 there: June 2 09:30 local
    // 2026-06-01 is a Monday.
    ['Europe/Berlin', '2026-06-01T10:00:00Z', 'tue 20:00', '2026-06-02T18:00:00Z'],
    ['Europe/Berlin', '2026-06-01T10:00:00Z', 'monday 20:00', '2026-06-01T18:00:00Z'],
    ['Europe/Berlin', '2026-06-01T19:00:00Z', 'mon 20:00', '2026-06-08T18:00:00Z'], // today's 20:00 passed: next week
    ['Europe/Berlin', '2026-06-01T10:00:00Z', '2026-08-25 20:00', '2026-08-25T18:00:00Z'],
    ['Europe/Berlin', '2026-06-01T10:00:00Z', '2026-12-25T20:00', '2026-12-25T19:00:00Z'],
    ['Europe/Berlin', '2026-06-01T10:00:00Z', '2026-08-25T20:00:00Z', '2026-08-25T20:00:00Z'],
    ['Europe/Berlin', '2026-06-01T10:00:00Z', '2026-08-25T20:00-05:00', '2026-08-26T01:00:00Z'],
  ];
  it.each(table)('%s at %s: %s', (tz, now, when, expected) => {
    const r = parseWhen(when, { now: at(now), tz });
    expect(new Date(r.at).toISOString()).toBe(new Date(expected).toISOString());
    expect(r.display).toContain(tz);
  });
});

describe('parseWhen: DST', () => {
  it('tomorrow 09:00 across spring forward keeps the wall time (Berlin, 2026-03-29)', () => {
    const r = parseWhen('tomorrow 09:00', { now: at('2026-03-28T12:00:00Z'), tz: 'Europe/Berlin' });
    expect(new Date(r.at).toISOString()).toBe('2026-03-29T07:00:00.000Z'); // UTC+2 after the change
    expect(r.display).toContain('UTC+02:00');
  });
  it('a duration across the change is exact elapsed time', () => {
    const now = at('2026-03-29T00:30:00Z');
    const r = parseWhen('2h', { now, tz: 'Europe/Berlin' });
    expect(r.at - now).toBe(7_200_000);
    expect(r.display).toContain('04:30'); // 01:30 + 2 h of real time = 04:30 local after the skipped hour
  });
  it('a skipped wall time moves past the gap with a note', () => {
    const r = parseWhen('2026-03-29 02:30', { now: at('2026-03-20T00:00:00Z'), tz: 'Europe/Berlin' });
    expect(new Date(r.at).toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(r.notes.join(' ')).toMatch(/does not exist.*becomes 03:30/);
  });
  it('a repeated wall time takes the first with a note (New York fall back 2026-11-01)', () => {
    const r = parseWhen('2026-11-01 01:30', { now: at('2026-10-20T00:00:00Z'), tz: 'America/New_York' });
    expect(new Date(r.at).toISOString()).toBe('2026-11-01T05:30:00.000Z'); // EDT, the first 01:30
    expect(r.notes.join(' ')).toMatch(/happens twice/);
  });
  it('offsets follow the zone rules', () => {
    expect(offsetMinutes(at('2026-01-10T12:00:00Z'), 'America/New_York')).toBe(-300);
    expect(offsetMinutes(at('2026-07-10T12:00:00Z'), 'America/New_York')).toBe(-240);
    expect(offsetMinutes(at('2026-07-10T12:00:00Z'), 'Australia/Lord_Howe')).toBe(630);
    expect(zonedToInstant(2026, 10, 25, 2, 30, 'Europe/London').note).toBeNull();
  });
  it('TZ from the environment is the person\'s zone', () => {
    expect(localZone({ TZ: 'Asia/Tokyo' })).toBe('Asia/Tokyo');
    expect(localZone({ TZ: 'Not/AZone' })).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  });
});

describe('parseWhen: refusals say why', () => {
  const now = at('2026-06-01T10:00:00Z');
  it.each([
    ['08:00', /today has passed.*tomorrow 10:00|today has passed/],
    ['2026-05-01 10:00', /in the past \(it is mon 2026-06-01/],
    ['2026-02-30 10:00', /not a valid date/],
    ['2026-08-25', /no time/],
    ['next blursday', /not a time Deskhand understands/],
    ['25:00', /not a time/],
    ['', /empty/],
  ])('%s', (when, message) => {
    expect(() => parseWhen(when, { now, tz: 'Europe/Berlin' })).toThrow(WhenError);
    expect(() => parseWhen(when, { now, tz: 'Europe/Berlin' })).toThrow(message);
  });
  it('unknown zone', () => expect(() => parseWhen('30m', { now, tz: 'Mars/Olympus' })).toThrow(/Unknown time zone/));
});

describe('cron and jitter', () => {
  it('cron runs in the zone, across DST', () => {
    // 09:00 Berlin every day: 07:00 UTC in summer, 08:00 UTC in winter.
    expect(new Date(cronNext('0 9 * * *', 'Europe/Berlin', at('2026-06-01T10:00:00Z'))!).toISOString()).toBe('2026-06-02T07:00:00.000Z');
    expect(new Date(cronNext('0 9 * * *', 'Europe/Berlin', at('2026-12-01T10:00:00Z'))!).toISOString()).toBe('2026-12-02T08:00:00.000Z');
    expect(() => cronNext('0 9 * *', 'UTC', 0)).toThrow(/5-field/);
    expect(() => cronNext('99 9 * * *', 'UTC', 0)).toThrow(/not a valid cron/);
  });
  it('is deterministic and bounded', () => {
    const slot = at('2026-06-01T10:00:00Z');
    const a = jitterMs('trg_aaaa', slot, { recurring: true, periodMs: 3_600_000 });
    expect(jitterMs('trg_aaaa', slot, { recurring: true, periodMs: 3_600_000 })).toBe(a);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(360_000); // 10 % of an hour
    const ids = Array.from({ length: 50 }, (_, i) => `trg_${i}`);
    expect(new Set(ids.map((id) => jitterMs(id, slot, { recurring: true, periodMs: 86_400_000 }))).size).toBeGreaterThan(40);
    for (const id of ids) expect(jitterMs(id, slot, { recurring: true, periodMs: 86_400_000 })).toBeLessThan(15 * 60_000);
    for (const id of ids) expect(jitterMs(id, slot, { recurring: false })).toBeLessThan(90_000);
    expect(jitterMs('x', at('2026-06-01T10:07:00Z'), { recurring: false })).toBe(0);
  });
  it('displayTime echoes zone and offset', () => {
    expect(displayTime(at('2026-06-01T16:00:00Z'), 'Europe/Berlin')).toBe('mon 2026-06-01 18:00 (Europe/Berlin, UTC+02:00)');
  });
});
