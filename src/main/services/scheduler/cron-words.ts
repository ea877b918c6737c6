/**
 * A cron expression in plain words ("every weekday at 09:00", "every 15 minutes"), for list_triggers and
 * register_trigger. Common shapes get a sentence; anything else is spelled out field by field, never guessed.
 */
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MONTH_NAMES: Record<string, number> = Object.fromEntries(MONTHS.map((m, i) => [m.slice(0, 3).toLowerCase(), i + 1]));

const pad = (n: number) => String(n).padStart(2, '0');
const isNum = (s: string) => /^\d+$/.test(s);

function list(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)!}`;
}

function num(s: string, names: Record<string, number>): number | null {
  if (isNum(s)) return Number(s);
  const n = names[s.toLowerCase()];
  return n === undefined ? null : n;
}

/** Weekdays of a day-of-week field in words, or null when it is not a plain list/range of days. */
function weekdays(field: string): string | null {
  if (field === '1-5' || field.toLowerCase() === 'mon-fri') return 'every weekday (Monday to Friday)';
  if (field === '0,6' || field === '6,0' || field.toLowerCase() === 'sat,sun' || field.toLowerCase() === 'sun,sat') return 'every Saturday and Sunday';
  const out: string[] = [];
  for (const part of field.split(',')) {
    const range = part.split('-');
    if (range.length === 2) {
      const a = num(range[0]!, DAY_NAMES);
      const b = num(range[1]!, DAY_NAMES);
      if (a === null || b === null || a > 7 || b > 7) return null;
      out.push(`${DAYS[a % 7]!} to ${DAYS[b % 7]!}`);
    } else {
      const d = num(part, DAY_NAMES);
      if (d === null || d > 7) return null;
      out.push(DAYS[d % 7]!);
    }
  }
  return `every ${list(out)}`;
}

function months(field: string): string | null {
  const out: string[] = [];
  for (const part of field.split(',')) {
    const m = num(part, MONTH_NAMES);
    if (m === null || m < 1 || m > 12) return null;
    out.push(MONTHS[m - 1]!);
  }
  return list(out);
}

function ordinal(n: number): string {
  const s = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

/** The time of day when minute and hour are plain lists of numbers ("09:00", "09:00 and 17:30"), else null. */
function clockTimes(minute: string, hour: string): string | null {
  const ms = minute.split(',');
  const hs = hour.split(',');
  if (!ms.every(isNum) || !hs.every(isNum)) return null;
  const times = hs.flatMap((h) => ms.map((m) => `${pad(Number(h))}:${pad(Number(m))}`));
  return times.length > 6 ? null : list(times);
}

/** A 5-field cron expression in plain words; the expression must already be valid (cronOf checked it). */
export function describeCron(expr: string): string {
  const f = expr.trim().split(/\s+/);
  if (f.length !== 5) return `cron "${expr}"`;
  const [minute, hour, dom, month, dow] = f as [string, string, string, string, string];
  const anyDay = dom === '*' && month === '*' && dow === '*';

  // Sub-daily shapes.
  const everyMin = /^\*\/(\d+)$/.exec(minute);
  if (hour === '*' && anyDay) {
    if (minute === '*') return 'every minute';
    if (everyMin) return Number(everyMin[1]) === 1 ? 'every minute' : `every ${everyMin[1]} minutes`;
    if (isNum(minute)) return Number(minute) === 0 ? 'every hour, on the hour' : `every hour at ${pad(Number(minute))} past`;
  }
  const everyHour = /^\*\/(\d+)$/.exec(hour);
  if (everyHour && isNum(minute) && anyDay) return `every ${everyHour[1]} hours at :${pad(Number(minute))}`;

  const at = clockTimes(minute, hour);
  if (at) {
    if (anyDay) return `every day at ${at}`;
    if (dom === '*' && month === '*') {
      const days = weekdays(dow);
      if (days) return `${days} at ${at}`;
    }
    if (dow === '*' && dom.split(',').every(isNum)) {
      const days = list(dom.split(',').map((d) => ordinal(Number(d))));
      if (month === '*') return `on the ${days} of every month at ${at}`;
      const ms = months(month);
      if (ms) return `every year on the ${days} of ${ms} at ${at}`;
    }
  }

  // Anything else: each field said as it is.
  const parts = [
    minute === '*' ? 'every minute' : `minute ${minute}`,
    hour === '*' ? 'of every hour' : `of hour ${hour}`,
    dom === '*' ? null : `on day-of-month ${dom}`,
    month === '*' ? null : `in month ${month}`,
    dow === '*' ? null : `on day-of-week ${dow} (0 = Sunday)`,
  ].filter((p): p is string => p !== null);
  return `at ${parts.join(' ')}`;
}
