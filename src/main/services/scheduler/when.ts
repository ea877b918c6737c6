/**
 * Parsing `when` for reminders and triggers in the person's time zone (IANA name; DST honoured through Intl):
 * `30m`, `2h15m`, `90s`, `1d`, `in 10 minutes`, `18:00`, `6pm`, `today 18:00`, `tomorrow 09:30`, `tue 20:00`,
 * `2026-08-25 20:00`, `2026-08-25T20:00:00Z`, `2026-08-25T20:00+02:00`. Past times are refused with the reason; a wall
 * time that does not exist (the hour skipped when clocks go forward) moves to the first valid minute after it, and an
 * ambiguous one (the hour repeated when clocks go back) takes the first of the two, each with a note.
 */
import type { Cron } from 'croner';
import { lazyPackage } from '../lazy-package';

/** croner, loaded by the first cron expression (a run's start, which assembles the schedule family, does not load it). */
const croner = lazyPackage<{ Cron: typeof Cron }>('croner');
const Croner = (): typeof Cron => croner().Cron;

export class WhenError extends Error {
  override readonly name = 'WhenError';
}

export interface ResolvedWhen {
  /** Epoch milliseconds. */
  at: number;
  /** The time in the zone, with its offset: `2026-03-29 03:30 (Europe/Berlin, UTC+02:00)`. */
  display: string;
  /** What was understood, e.g. "in 2 h 15 min". */
  understood: string;
  /** DST gap or overlap notes. */
  notes: string[];
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const UNIT_MS: Record<string, number> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 };

/** The person's time zone: TZ, else what Intl resolves for this process. */
export function localZone(env: NodeJS.ProcessEnv = process.env): string {
  const tz = env.TZ?.replace(/^:/, '');
  if (tz && isZone(tz)) return tz;
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function isZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

interface Wall {
  year: number;
  month: number; // 1-12
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number; // 0 = Sunday
}

const formatters = new Map<string, Intl.DateTimeFormat>();
function wallOf(ms: number, tz: string): Wall {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      weekday: 'short',
    });
    formatters.set(tz, f);
  }
  const parts: Record<string, string> = {};
  for (const p of f.formatToParts(new Date(ms))) parts[p.type] = p.value;
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    weekday: WEEKDAYS.indexOf(parts.weekday!.toLowerCase().slice(0, 3)),
  };
}

/** The zone's offset from UTC at an instant, in minutes (Berlin in summer: 120). */
export function offsetMinutes(ms: number, tz: string): number {
  const w = wallOf(ms, tz);
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * The instant a wall-clock time in `tz` names. A skipped wall time (spring forward) resolves past the gap; a repeated
 * one (fall back) resolves to the earlier instant. `note` says which happened.
 */
export function zonedToInstant(y: number, mo: number, d: number, h: number, mi: number, tz: string): { at: number; note: string | null } {
  const guess = Date.UTC(y, mo - 1, d, h, mi);
  const candidates = new Set<number>();
  for (const probe of [guess - 86_400_000, guess, guess + 86_400_000]) candidates.add(guess - offsetMinutes(probe, tz) * 60_000);
  const matches = [...candidates].filter((c) => {
    const w = wallOf(c, tz);
    return w.year === y && w.month === mo && w.day === d && w.hour === h && w.minute === mi;
  });
  matches.sort((a, b) => a - b);
  const label = `${pad(h)}:${pad(mi)}`;
  if (matches.length > 1) return { at: matches[0]!, note: `${label} happens twice on that day in ${tz} (clocks go back); the first one is used.` };
  if (matches.length === 1) return { at: matches[0]!, note: null };
  // In a gap: the offset before the gap carries the wall time past it (02:30 → 03:30 when 02:00–03:00 is skipped).
  const before = guess - offsetMinutes(guess - 86_400_000, tz) * 60_000;
  const w = wallOf(before, tz);
  return { at: before, note: `${label} does not exist on that day in ${tz} (clocks go forward); it becomes ${pad(w.hour)}:${pad(w.minute)}.` };
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** `2026-03-29 03:30 (Europe/Berlin, UTC+02:00)`. */
export function displayTime(ms: number, tz: string): string {
  const w = wallOf(ms, tz);
  const off = offsetMinutes(ms, tz);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${WEEKDAYS[w.weekday]} ${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}${w.second ? `:${pad(w.second)}` : ''} (${tz}, UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)})`;
}

function addDays(y: number, mo: number, d: number, days: number): { y: number; mo: number; d: number } {
  const t = new Date(Date.UTC(y, mo - 1, d + days));
  return { y: t.getUTCFullYear(), mo: t.getUTCMonth() + 1, d: t.getUTCDate() };
}

function parseClock(text: string): { h: number; m: number } | null {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/.exec(text);
  if (!m) return null;
  let h = Number(m[1]);
  const min = m[2] === undefined ? 0 : Number(m[2]);
  if (m[2] === undefined && !m[3]) return null; // a bare "18" is not a time
  if (m[3]) {
    if (h < 1 || h > 12) return null;
    if (m[3] === 'am' && h === 12) h = 0;
    else if (m[3] === 'pm' && h !== 12) h += 12;
  }
  if (h > 23 || min > 59) return null;
  return { h, m: min };
}

const EXAMPLES = '`30m`, `2h15m`, `18:00`, `tomorrow 09:30`, `tue 20:00`, or an ISO date such as `2026-08-25 20:00` or `2026-08-25T20:00:00+02:00`';

/**
 * Resolves `when` to an instant in the future. Throws WhenError (a message the model can act on) for anything it
 * does not understand and for past times.
 */
export function parseWhen(input: string, opts: { now?: number; tz?: string } = {}): ResolvedWhen {
  const now = opts.now ?? Date.now();
  const tz = opts.tz ?? localZone();
  if (!isZone(tz)) throw new WhenError(`Unknown time zone "${tz}".`);
  const text = input.trim().toLowerCase().replace(/\s+/g, ' ');
  if (!text) throw new WhenError(`"when" is empty. Use ${EXAMPLES}.`);
  const notes: string[] = [];
  const nowWall = wallOf(now, tz);
  const done = (at: number, understood: string): ResolvedWhen => {
    if (at <= now) {
      throw new WhenError(`${displayTime(at, tz)} is in the past (it is ${displayTime(now, tz)} now): ${understood}. Give a future time, e.g. \`tomorrow ${pad(wallOf(at, tz).hour)}:${pad(wallOf(at, tz).minute)}\`.`);
    }
    return { at, display: displayTime(at, tz), understood, notes };
  };

  // Durations: 30m, 2h15m, 1h 30m, in 10 minutes, 90s, 1d.
  const durText = text.replace(/^in /, '').replace(/(\d)\s*(days?|hours?|hrs?|minutes?|mins?|seconds?|secs?)\b/g, (_all, n: string, unit: string) => `${n}${unit[0] === 'd' ? 'd' : unit[0] === 'h' ? 'h' : unit[0] === 'm' ? 'm' : 's'}`);
  if (/^(\d+\s*[dhms]\s*)+$/.test(durText)) {
    let ms = 0;
    const parts: string[] = [];
    for (const m of durText.matchAll(/(\d+)\s*([dhms])/g)) {
      ms += Number(m[1]) * UNIT_MS[m[2]!]!;
      parts.push(`${Number(m[1])} ${{ d: 'd', h: 'h', m: 'min', s: 's' }[m[2] as 'd']}`);
    }
    if (ms <= 0) throw new WhenError(`"${input}" is no time from now: give a duration above zero, e.g. \`30m\`.`);
    return done(now + ms, `in ${parts.join(' ')}`);
  }

  // ISO / absolute dates.
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(z|[+-]\d{2}:?\d{2})?)?$/.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, zone] = iso;
    if (h === undefined) throw new WhenError(`"${input}" has a date but no time: add one, e.g. \`${y}-${mo}-${d} 09:00\`.`);
    const Y = Number(y), MO = Number(mo), D = Number(d), H = Number(h), MI = Number(mi), S = Number(s ?? 0);
    const check = new Date(Date.UTC(Y, MO - 1, D));
    if (check.getUTCMonth() !== MO - 1 || check.getUTCDate() !== D || H > 23 || MI > 59 || S > 59) throw new WhenError(`"${input}" is not a valid date and time.`);
    if (zone) {
      let offset = 0;
      if (zone !== 'z') {
        const zm = /^([+-])(\d{2}):?(\d{2})$/.exec(zone)!;
        offset = (zm[1] === '-' ? -1 : 1) * (Number(zm[2]) * 60 + Number(zm[3]));
      }
      return done(Date.UTC(Y, MO - 1, D, H, MI, S) - offset * 60_000, `${input.trim()} (fixed offset)`);
    }
    const r = zonedToInstant(Y, MO, D, H, MI, tz);
    if (r.note) notes.push(r.note);
    return done(r.at + S * 1000, `${input.trim()} in ${tz}`);
  }

  // [today|tomorrow|weekday] clock
  const rel = /^(?:(today|tonight|tomorrow|tmrw|(?:sun|mon|tue|wed|thu|fri|sat)[a-z]*)\s+(?:at\s+)?)?(?:at\s+)?(.+)$/.exec(text);
  const clock = rel ? parseClock(rel[2]!) : null;
  if (rel && clock) {
    const dayWord = rel[1];
    let offsetDays = 0;
    let understood: string;
    if (!dayWord || dayWord === 'today' || dayWord === 'tonight') {
      understood = `today at ${pad(clock.h)}:${pad(clock.m)}`;
    } else if (dayWord === 'tomorrow' || dayWord === 'tmrw') {
      offsetDays = 1;
      understood = `tomorrow at ${pad(clock.h)}:${pad(clock.m)}`;
    } else {
      const idx = WEEKDAYS.indexOf(dayWord.slice(0, 3));
      const full = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'][idx]!;
      if (idx < 0 || !(dayWord.length === 3 || full.startsWith(dayWord))) throw new WhenError(`"${dayWord}" is not a day. Use ${EXAMPLES}.`);
      offsetDays = (idx - nowWall.weekday + 7) % 7;
      const today = zonedToInstant(nowWall.year, nowWall.month, nowWall.day, clock.h, clock.m, tz).at;
      if (offsetDays === 0 && today <= now) offsetDays = 7;
      understood = `${full} at ${pad(clock.h)}:${pad(clock.m)}`;
    }
    const day = addDays(nowWall.year, nowWall.month, nowWall.day, offsetDays);
    const r = zonedToInstant(day.y, day.mo, day.d, clock.h, clock.m, tz);
    if (r.note) notes.push(r.note);
    if (!dayWord && r.at <= now) {
      throw new WhenError(`${pad(clock.h)}:${pad(clock.m)} today has passed (it is ${displayTime(now, tz)} now). Say \`tomorrow ${pad(clock.h)}:${pad(clock.m)}\` for tomorrow.`);
    }
    return done(r.at, understood);
  }
  throw new WhenError(`"${input}" is not a time Deskhand understands. Use ${EXAMPLES}.`);
}

/** Validates a 5-field cron expression and gives its next run after `from` in `tz`. */
export function cronNext(expr: string, tz: string, from: number): number | null {
  const next = cronOf(expr, tz).nextRun(new Date(from));
  return next ? next.getTime() : null;
}

export function cronOf(expr: string, tz: string): Cron {
  const fields = expr.trim().split(/\s+/);
  if (fields.length !== 5) throw new WhenError(`"${expr}" is not a 5-field cron expression (minute hour day-of-month month day-of-week), e.g. \`0 9 * * 1-5\`.`);
  try {
    return new (Croner())(expr.trim(), { timezone: tz, paused: true });
  } catch (err) {
    throw new WhenError(`"${expr}" is not a valid cron expression: ${err instanceof Error ? err.message : String(err)}.`);
  }
}

/** The period of a cron schedule near `from` (the gap between its next two runs). */
export function cronPeriodMs(expr: string, tz: string, from: number): number {
  const runs = cronOf(expr, tz).nextRuns(2, new Date(from));
  return runs.length === 2 ? runs[1]!.getTime() - runs[0]!.getTime() : 86_400_000;
}

/** A stable fraction in [0, 1) from an id (FNV-1a). */
export function stableFraction(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h / 2 ** 32;
}

/**
 * Deterministic jitter (so many schedules do not all fire on the hour): a recurring schedule moves forward by up to
 * min(10% of its period, 15 min); a one-shot exactly on :00 or :30 by up to 90 s. Same id, same shift.
 */
export function jitterMs(id: string, slot: number, opts: { recurring: boolean; periodMs?: number }): number {
  const f = stableFraction(id);
  if (opts.recurring) return Math.floor(f * Math.min((opts.periodMs ?? 3_600_000) * 0.1, 15 * 60_000));
  const d = new Date(slot);
  const onTheHalf = d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0 && d.getUTCMinutes() % 30 === 0;
  return onTheHalf ? Math.floor(f * 90_000) : 0;
}
